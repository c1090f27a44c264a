#include "viewer/timeline/Palette.h"

#include <algorithm>
#include <cmath>

namespace sl::viewer {

namespace {

uint32_t hslToArgb(double h, double s, double l) {
    const double c = (1 - std::fabs(2 * l - 1)) * s;
    const double hp = h / 60.0;
    const double x = c * (1 - std::fabs(std::fmod(hp, 2.0) - 1));
    double r = 0, g = 0, b = 0;
    if (hp < 1) {
        r = c;
        g = x;
    } else if (hp < 2) {
        r = x;
        g = c;
    } else if (hp < 3) {
        g = c;
        b = x;
    } else if (hp < 4) {
        g = x;
        b = c;
    } else if (hp < 5) {
        r = x;
        b = c;
    } else {
        r = c;
        b = x;
    }
    const double m = l - c / 2;
    auto ch = [m](double v) {
        return static_cast<uint32_t>(std::clamp((v + m) * 255.0 + 0.5, 0.0, 255.0));
    };
    return 0xFF000000u | (ch(r) << 16) | (ch(g) << 8) | ch(b);
}

}  // namespace

uint32_t Palette::hashColor(std::string_view name) {
    // FNV-1a: stable across runs and platforms, unlike std::hash.
    uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ULL;
    const double hue = static_cast<double>(h % 360);
    const double sat = 0.55 + static_cast<double>((h >> 16) % 30) / 100.0;
    const double light = 0.45 + static_cast<double>((h >> 24) % 15) / 100.0;
    return hslToArgb(hue, sat, light);
}

uint32_t Palette::copyKindColor(CopyKind kind) {
    switch (kind) {
        case CopyKind::HtoD:
        case CopyKind::HtoA:
        case CopyKind::UvmHtoD:
            return 0xFF2E9E44;  // green
        case CopyKind::DtoH:
        case CopyKind::AtoH:
        case CopyKind::UvmDtoH:
            return 0xFFD0413B;  // red
        case CopyKind::DtoD:
        case CopyKind::AtoA:
        case CopyKind::AtoD:
        case CopyKind::DtoA:
        case CopyKind::UvmDtoD:
            return 0xFFB58A1B;  // amber
        case CopyKind::PtoP:
            return 0xFF8E44AD;  // purple
        case CopyKind::HtoH:
            return 0xFF7F8C8D;  // grey
        case CopyKind::Unknown:
            break;
    }
    return 0xFF95A5A6;
}

uint32_t Palette::mpiClassColor(MpiCallClass c) {
    switch (c) {
        case MpiCallClass::P2p:
            return 0xFF2E86C1;  // blue
        case MpiCallClass::Collective:
            return 0xFFE09B1A;  // amber
        case MpiCallClass::StartWait:
            return 0xFFC0392B;  // red
        case MpiCallClass::Other:
            break;
    }
    return 0xFF8C9BA5;  // grey
}

uint32_t Palette::openMpColor(OpenMpEvent e) {
    switch (e) {
        case OpenMpEvent::Parallel:
            return 0xFF4A6FA5;  // slate blue
        case OpenMpEvent::ImplicitTask:
            return 0xFF3E9CA8;  // teal
        case OpenMpEvent::Work:
            return 0xFF43A047;  // green
        case OpenMpEvent::Sync:
            return 0xFFE8662A;  // orange: waiting
        case OpenMpEvent::Task:
            return 0xFF8E5CC2;  // violet
    }
    return 0xFF8C9BA5;
}

uint32_t Palette::kindColor(EventKind kind) {
    switch (kind) {
        case EventKind::Memset:
            return 0xFF16A0A8;
        case EventKind::Sync:
            return 0xFFC0392B;
        case EventKind::ThreadState:
            return 0xFF4CAF50;
        case EventKind::CudaMemory:
            return 0xFFE67E22;
        case EventKind::GraphTrace:
            return 0xFF5D6D7E;
        case EventKind::CuptiOverhead:
            return 0xFF9E9E9E;
        case EventKind::Metric:
            return 0xFF3F7FBF;
        case EventKind::CpuSample:
            return 0xFF78909C;  // samples whose leaf function is unknown
        default:
            return 0xFF607D8B;
    }
}

uint32_t Palette::nameColor(uint32_t id) {
    if (id >= m_nameColors.size()) return hashColor(m_report.str(id));  // not in the report
    std::atomic<uint32_t>& slot = m_nameColors[id];
    uint32_t c = slot.load(std::memory_order_relaxed);
    if (c == 0) {
        c = hashColor(m_report.str(id));
        slot.store(c, std::memory_order_relaxed);
    }
    return c;
}

uint32_t Palette::eventColor(const Track& t, size_t i) {
    switch (t.key.kind) {
        case EventKind::Memcpy:
            return copyKindColor(static_cast<CopyKind>(t.intAt(cols::Memcpy::CopyKind, i)));
        case EventKind::NvtxRange:
        case EventKind::NvtxMark: {
            const uint32_t given = static_cast<uint32_t>(t.intAt(cols::Nvtx::Color, i));
            if (given != 0) return given | 0xFF000000u;  // NVTX colors are ARGB; draw them opaque
            return nameColor(t.nameAt(i));
        }
        case EventKind::Kernel:
        case EventKind::CudaApi:
        case EventKind::OsRuntime:
        case EventKind::Cublas:  // by function, as CUDA API calls
        case EventKind::Cudnn:
        case EventKind::Nccl:
            return nameColor(t.nameAt(i));
        case EventKind::CpuSample:  // by the leaf function, like nsys's sample ticks
            return t.nameAt(i) != 0 ? nameColor(t.nameAt(i)) : kindColor(t.key.kind);
        case EventKind::Mpi:
            return mpiClassColor(static_cast<MpiCallClass>(t.intAt(cols::Mpi::CallClass, i)));
        case EventKind::OpenMp:
            return openMpColor(static_cast<OpenMpEvent>(t.intAt(cols::OpenMp::Event, i)));
        default:
            return kindColor(t.key.kind);
    }
}

uint32_t withAlpha(uint32_t argb, double alpha) {
    const auto a = static_cast<uint32_t>(std::clamp(alpha, 0.0, 1.0) * 255.0 + 0.5);
    return (argb & 0x00FFFFFFu) | (a << 24);
}

uint32_t blendOver(uint32_t argb, double alpha, uint32_t background) {
    const double a = std::clamp(alpha, 0.0, 1.0);
    auto channel = [&](int shift) {
        const double c = (argb >> shift) & 0xFF, b = (background >> shift) & 0xFF;
        return static_cast<uint32_t>(c * a + b * (1 - a) + 0.5) << shift;
    };
    return 0xFF000000u | channel(16) | channel(8) | channel(0);
}

uint32_t textColorOn(uint32_t argb) {
    const double r = (argb >> 16) & 0xFF, g = (argb >> 8) & 0xFF, b = argb & 0xFF;
    return (0.299 * r + 0.587 * g + 0.114 * b) > 150 ? 0xFF000000u : 0xFFFFFFFFu;
}

}  // namespace sl::viewer
