#pragma once
// Event colors: NVTX colors as given by the application, kernels and API calls by a stable
// hash of their name (the same name has the same color in every report and session), memory
// copies by direction, MPI calls by their call class, OpenMP constructs by what they are. Name colors are cached per string id; the cache lives as long as the
// report's row tree and may be filled from several threads at once (rows build in parallel).
#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "model/core/Report.h"

namespace sl::viewer {

class Palette {
public:
    explicit Palette(const Report& report)
        : m_report(report), m_nameColors(report.strings.size()) {}

    // The color of event i of a track, 0xFFRRGGBB.
    uint32_t eventColor(const Track& track, size_t i);
    uint32_t nameColor(uint32_t stringId);

    static uint32_t hashColor(std::string_view name);
    static uint32_t copyKindColor(CopyKind kind);
    static uint32_t kindColor(EventKind kind);  // for kinds without a name-based color
    // MPI calls by what they are, not by name: point-to-point blue, collectives amber, waits
    // red, the rest grey, so that where ranks wait shows at a glance.
    static uint32_t mpiClassColor(MpiCallClass c);
    // OpenMP constructs by what they are: parallel regions slate blue, implicit tasks teal,
    // worksharing green, explicit tasks violet, and barriers and other waits orange, so that
    // the threads that wait (load imbalance) stand out against those that work.
    static uint32_t openMpColor(OpenMpEvent e);

private:
    const Report& m_report;
    // 0 = not computed yet. Threads racing on one entry store the same value.
    std::vector<std::atomic<uint32_t>> m_nameColors;
};

// Scales the alpha channel of an ARGB color.
uint32_t withAlpha(uint32_t argb, double alpha);
// `argb` at `alpha` over an opaque background, as one opaque color: what blending would give,
// without the blending (software GL rasterizes opaque boxes much faster).
uint32_t blendOver(uint32_t argb, double alpha, uint32_t background);
// Black or white, whichever reads better on `argb`.
uint32_t textColorOn(uint32_t argb);

}  // namespace sl::viewer
