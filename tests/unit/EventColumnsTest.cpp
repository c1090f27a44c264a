// EventColumns.h against the schema: every event struct's columns are the schema's columns of
// its kind (count, order, names), every field survives a trip through a track's columns at the
// edges of its type (so each column is wide enough), and the ReportBuilder stores what
// columnsOf packs.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "model/core/EventColumns.h"
#include "model/core/ReportBuilder.h"
#include "model/core/Track.h"

namespace sl {
namespace {

template <class E>
class EventColumnsTest : public ::testing::Test {};

using EventStructs =
    ::testing::Types<OsRuntimeCall, CudaApiCall, KernelExec, MemcpyOp, MemsetOp, SyncOp, GraphExec,
                     NvtxRangeEvent, NvtxMarkEvent, MetricSample, CudaMemoryEvent, ThreadRunning,
                     CuptiOverheadEvent, CpuSampleEvent, MpiCall, OpenMpConstruct, CublasCall,
                     CudnnCall, NcclCall>;
TYPED_TEST_SUITE(EventColumnsTest, EventStructs);

template <class... E>
KindSet kindsOf(::testing::Types<E...>) {
    return KindSet{EventColumns<E>::kind...};
}

TEST(EventColumns, EveryKindHasAnEventStruct) {
    const KindSet covered = kindsOf(EventStructs{});
    for (EventKind k : kAllEventKinds) EXPECT_TRUE(covered.has(k)) << schemaOf(k).id;
}

// A launch dictionary as the report keeps one: ids are indexes.
struct Launches {
    std::vector<KernelLaunchInfo> table;
    uint32_t idOf(const KernelLaunchInfo& l) {
        for (size_t i = 0; i < table.size(); ++i)
            if (table[i] == l) return static_cast<uint32_t>(i);
        table.push_back(l);
        return static_cast<uint32_t>(table.size() - 1);
    }
};

// Field k gets a value with its type's high bits set (the most negative or largest signed
// value, two thirds of the largest unsigned one), different from every other field's: a column
// too narrow for its field, or a field packed twice, shows.
template <class E>
E edgeValues(int variant) {
    E e{};
    int k = 0;
    EventColumns<E>::visit(e, [&](std::string_view, auto& field) {
        using T = std::decay_t<decltype(field)>;
        const int n = k++ + variant;
        if constexpr (std::is_same_v<T, KernelLaunchInfo>) {
            field.grid[0] = static_cast<uint32_t>(n + 7);
            field.graphNodeId = std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(n);
        } else if constexpr (std::is_enum_v<T>) {
            field = static_cast<T>(1 + n % 3);
        } else if constexpr (std::is_floating_point_v<T>) {
            field = -1.0e300 / (n + 3);
        } else if constexpr (std::is_signed_v<T>) {
            field = n % 2 ? std::numeric_limits<T>::min() + static_cast<T>(n)
                          : std::numeric_limits<T>::max() - static_cast<T>(n);
        } else {
            field = static_cast<T>(std::numeric_limits<T>::max() / 3 * 2 - static_cast<T>(n));
        }
    });
    return e;
}

// A track's column as the integer columnsOf gives (F64 columns as the double's bits).
int64_t storedColumn(const Track& t, size_t column, size_t row) {
    const KindSchema& s = schemaOf(t.key.kind);
    if (s.columns[column].type == ColumnType::F64)
        return std::bit_cast<int64_t>(t.cols[column].doubleAt(row));
    return t.intAt(static_cast<int>(column), row);
}

TYPED_TEST(EventColumnsTest, ColumnsAreTheSchemasInOrder) {
    using E = TypeParam;
    const KindSchema& schema = schemaOf(EventColumns<E>::kind);
    ASSERT_EQ(kColumnCount<E>, schema.columns.size()) << schema.id;
    E e{};
    size_t k = 0;
    EventColumns<E>::visit(e, [&](std::string_view name, auto&) {
        EXPECT_EQ(name, schema.columns[k].name) << schema.id << " column " << k;
        ++k;
    });
}

TYPED_TEST(EventColumnsTest, EveryFieldSurvivesATrackAtTheEdgesOfItsType) {
    using E = TypeParam;
    const EventKind kind = EventColumns<E>::kind;
    Launches launches;
    auto idOf = [&](const KernelLaunchInfo& l) { return launches.idOf(l); };
    auto launchOf = [&](uint32_t id) { return launches.table.at(id); };
    TrackKey key;
    key.kind = kind;
    Track track(key);
    std::vector<E> events;
    for (int variant = 0; variant < 2; ++variant) {
        events.push_back(edgeValues<E>(variant * 5));
        auto packed = columnsOf(events.back(), idOf);
        track.append(1, 2, 0, packed.data());
        std::sort(packed.begin(), packed.end());
        EXPECT_EQ(std::adjacent_find(packed.begin(), packed.end()), packed.end())
            << schemaOf(kind).id << ": two columns hold one field";
    }
    for (size_t row = 0; row < events.size(); ++row) {
        int64_t stored[kColumnCount<E>];
        for (size_t c = 0; c < kColumnCount<E>; ++c) stored[c] = storedColumn(track, c, row);
        E back{};
        fromColumns(stored, back, launchOf);
        EXPECT_EQ(columnsOf(back, idOf), columnsOf(events[row], idOf))
            << schemaOf(kind).id << " row " << row;
        if constexpr (std::is_same_v<E, KernelExec>) {
            EXPECT_EQ(back.launch, events[row].launch);
        }
    }
}

TYPED_TEST(EventColumnsTest, TheBuilderStoresWhatColumnsOfPacks) {
    using E = TypeParam;
    ReportBuilder b;
    const E e = edgeValues<E>(3);
    b.add(e);
    auto report = b.finish();
    ASSERT_EQ(report->tracks.size(), 1u);
    const Track& t = report->tracks[0];
    ASSERT_EQ(t.key.kind, EventColumns<E>::kind);
    Launches launches{report->kernelLaunches};
    const auto want = columnsOf(e, [&](const KernelLaunchInfo& l) { return launches.idOf(l); });
    EXPECT_EQ(launches.table.size(), report->kernelLaunches.size());  // no launch the builder lacks
    for (size_t c = 0; c < kColumnCount<E>; ++c)
        EXPECT_EQ(storedColumn(t, c, 0), want[c]) << "column " << c;
}

TEST(EventColumns, ThreadRunningIsStoredAsRunning) {
    ReportBuilder b;
    b.add(ThreadRunning{1, 2, 10, 20, 3});
    auto r = b.finish();
    ASSERT_EQ(r->tracks.size(), 1u);
    EXPECT_EQ(r->tracks[0].intAt(cols::ThreadState::State, 0),
              static_cast<int64_t>(ThreadStateKind::Running));
    EXPECT_EQ(r->tracks[0].intAt(cols::ThreadState::Cpu, 0), 3);
}

}  // namespace
}  // namespace sl
