// GL-free tests of the "MPI" rows (-t mpi, tests/viewer/MpiFixture.h): processes labelled and
// ordered by rank, an MPI row under each thread that made MPI calls, calls colored by their
// class (point-to-point, collective, start/wait, other), and tooltip fields that give only what
// a call has (peer, tag, root, bytes).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/viewer/MpiFixture.h"
#include "tests/viewer/TrackRowFixture.h"
#include "viewer/ReportSummary.h"
#include "viewer/timeline/EventFields.h"
#include "viewer/timeline/Palette.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TrackRow.h"

using namespace sl;
using namespace sl::viewer;

namespace {

const std::string kRank0 = "Rank 0 \u2014 Process 100 (mpi_app)";
const std::string kRank1 = "Rank 1 \u2014 Process 200 (mpi_app)";

class MpiRow : public test::TrackRowFixture {
protected:
    MpiRow() : TrackRowFixture(test::makeMpiReport()) {}

    TrackRow* mpiRow(const std::string& process, const std::string& thread) {
        return dynamic_cast<TrackRow*>(root->find(process + "/" + thread + "/MPI"));
    }
};

TEST_F(MpiRow, ProcessesAreLabelledAndOrderedByRankUnrankedOnesKeepTheirPlace) {
    std::vector<std::string> titles;
    for (const auto& c : root->children()) titles.push_back(c->title());
    // The report lists mpirun, rank 1, rank 0.
    EXPECT_EQ(titles, (std::vector<std::string>{"Process 50 (mpirun)", kRank0, kRank1}));
}

TEST_F(MpiRow, EachThreadWithMpiCallsHasAnMpiRowFirst) {
    TrackRow* r0 = mpiRow(kRank0, "Thread 100 (mpi_app)");
    TrackRow* r1 = mpiRow(kRank1, "Thread 200 (mpi_app)");
    ASSERT_NE(r0, nullptr);
    ASSERT_NE(r1, nullptr);
    EXPECT_EQ(r0->count(), 8u);
    EXPECT_EQ(r1->count(), 7u);
    EXPECT_EQ(r0->laneCount(), 1u);
    EXPECT_EQ(root->find(kRank0 + "/Thread 100 (mpi_app)")->children().front().get(), r0);
    // The progress thread made no MPI calls: no MPI row there, and it is not folded away.
    Row* progress = root->find(kRank0 + "/Thread 102 (progress)");
    ASSERT_NE(progress, nullptr);
    ASSERT_EQ(progress->children().size(), 1u);
    EXPECT_EQ(progress->children().front()->title(), "OS runtime");
    EXPECT_EQ(root->find("Process 50 (mpirun)/Thread 50 (mpirun)/MPI"), nullptr);
}

TEST_F(MpiRow, CallsAreColoredByClass) {
    const uint32_t p2p = Palette::mpiClassColor(MpiCallClass::P2p),
                   coll = Palette::mpiClassColor(MpiCallClass::Collective),
                   wait = Palette::mpiClassColor(MpiCallClass::StartWait),
                   other = Palette::mpiClassColor(MpiCallClass::Other);
    EXPECT_EQ((std::set<uint32_t>{p2p, coll, wait, other}).size(), 4u);
    const TrackRow& r0 = *mpiRow(kRank0, "Thread 100 (mpi_app)");
    EXPECT_EQ(pixel(r0, 20), other);  // MPI_Init
    EXPECT_EQ(pixel(r0, 120), p2p);   // MPI_Send
    EXPECT_EQ(pixel(r0, 250), coll);  // MPI_Allreduce
    EXPECT_EQ(pixel(r0, 500), wait);  // MPI_Wait
    EXPECT_EQ(pixel(r0, 850), coll);  // MPI_Barrier
    const TrackRow& r1 = *mpiRow(kRank1, "Thread 200 (mpi_app)");
    EXPECT_EQ(pixel(r1, 500), p2p);   // MPI_Recv: rank 1 waits in a receive
    EXPECT_EQ(pixel(r1, 800), coll);  // MPI_Barrier, since 7 ms
    // The box carries the function's name.
    DrawList out;
    r0.build(context(r0), out);
    bool send = false;
    for (const DrawLabel& l : out.labels) send |= l.text == "MPI_Send";
    EXPECT_TRUE(send);
}

TEST_F(MpiRow, TooltipGivesOnlyTheFieldsACallHas) {
    const TrackRow& r0 = *mpiRow(kRank0, "Thread 100 (mpi_app)");
    std::string name;
    auto f = fields(r0, 120, 0, &name);  // MPI_Send to 1, tag 7, 4096 bytes
    EXPECT_EQ(name, "MPI_Send");
    EXPECT_EQ(f, (std::map<std::string, std::string>{{"Kind", "MPI calls"},
                                                     {"Call class", "p2p"},
                                                     {"Peer rank", "1"},
                                                     {"Tag", "7"},
                                                     {"Bytes sent", "4.00 KiB (4096 B)"}}));
    f = fields(r0, 500, 0, &name);
    EXPECT_EQ(name, "MPI_Wait");
    EXPECT_EQ(f,
              (std::map<std::string, std::string>{{"Kind", "MPI calls"}, {"Call class", "startwait"}}));
    f = fields(r0, 680, 0, &name);
    EXPECT_EQ(name, "MPI_Bcast");
    EXPECT_EQ(f["Root rank"], "0");
    EXPECT_EQ(f["Bytes sent"], "64 B");
    EXPECT_EQ(f.count("Peer rank"), 0u);
    const TrackRow& r1 = *mpiRow(kRank1, "Thread 200 (mpi_app)");
    f = fields(r1, 500, 0, &name);
    EXPECT_EQ(name, "MPI_Recv");
    EXPECT_EQ(f["Peer rank"], "0");
    EXPECT_EQ(f["Bytes received"], "1.00 MiB (1048576 B)");
    EXPECT_EQ(f.count("Bytes sent"), 0u);
    f = fields(r1, 250, 0, &name);
    EXPECT_EQ(name, "MPI_Allreduce");
    EXPECT_EQ(f["Call class"], "collective");
    EXPECT_EQ(f["Bytes sent"], "8 B");
    EXPECT_EQ(f["Bytes received"], "8 B");
}

TEST_F(MpiRow, SummaryListsTheRanks) {
    const QString html = reportSummaryHtml(*report, "mpi.rep");
    EXPECT_TRUE(html.contains("100 mpi_app (MPI rank 0 of 2)")) << html.toStdString();
    EXPECT_TRUE(html.contains("200 mpi_app (MPI rank 1 of 2)"));
    EXPECT_TRUE(html.contains("50 mpirun <i>"));
    EXPECT_TRUE(html.contains("MPI calls"));
}

}  // namespace
