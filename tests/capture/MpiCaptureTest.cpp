// -t mpi end to end: real OpenMPI programs under mpirun, traced both ways users run them (the
// profiler around mpirun: one report with every rank a process; the profiler inside mpirun: a
// report per rank), and the bad inputs (-t mpi on a program without MPI, an implementation this
// build has no module for, a rank that calls MPI_Abort).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

namespace fs = std::filesystem;

// mpirun as the tests need it: root allowed (CI containers), more ranks than cores, and shared
// memory without cross-memory attach (refused in many containers).
std::vector<std::string> mpirun(int ranks) {
    return {SIGHTLINE_MPIRUN, "--allow-run-as-root", "--oversubscribe", "--mca",
            "btl_vader_single_copy_mechanism", "none", "-np", std::to_string(ranks)};
}

bool haveMpi(std::string* why) {
    if (std::string(SIGHTLINE_MPIRUN).empty()) {
        *why = "mpirun not found (Debian: openmpi-bin)";
        return false;
    }
    if (!fs::exists(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-mpi-openmpi.so") ||
        !fs::exists(client("mpi_counts"))) {
        *why = "built without OpenMPI's headers (Debian: libopenmpi-dev)";
        return false;
    }
    return true;
}

#define REQUIRE_MPI()                                                \
    do {                                                             \
        std::string why_;                                            \
        if (!haveMpi(&why_)) GTEST_SKIP() << "MPI tests: " << why_;  \
    } while (0)

std::vector<std::string> cat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// The calls mpi_counts.c makes on every rank (MPI_Iprobe: rank + 1 times).
const std::map<std::string, int> kCallsPerRank = {
    {"MPI_Init", 1},      {"MPI_Send", 1},       {"MPI_Recv", 1},      {"MPI_Isend", 3},
    {"MPI_Irecv", 3},     {"MPI_Waitall", 3},    {"MPI_Barrier", 2},   {"MPI_Bcast", 1},
    {"MPI_Allreduce", 5}, {"MPI_Reduce", 1},     {"MPI_Allgather", 1}, {"MPI_Alltoall", 1},
    {"MPI_Gather", 1},    {"MPI_Sendrecv", 1},   {"MPI_Comm_split", 1}, {"MPI_Comm_free", 1},
    {"MPI_Finalize", 1}};

int64_t col(const Ev& e, uint8_t c) { return e.track->intAt(c, e.index); }

// Checks one rank's MPI calls: counts of every function, and the ring's peers, tags and sizes.
void checkRank(const Report& r, const Process& p, int ranks) {
    const int rank = p.mpiRank;
    SCOPED_TRACE("rank " + std::to_string(rank));
    std::map<std::string, int> counts;
    std::vector<Ev> mine;
    for (const Ev& e : events(r, EventKind::Mpi))
        if (e.pid == p.pid) ++counts[e.name], mine.push_back(e);
    std::map<std::string, int> expected = kCallsPerRank;
    expected["MPI_Iprobe"] = rank + 1;
    EXPECT_EQ(counts, expected);
    for (const Ev& e : mine) {
        EXPECT_LE(e.start, e.end) << e.name;
        const auto cls = static_cast<MpiCallClass>(col(e, cols::Mpi::CallClass));
        if (e.name == "MPI_Send") {
            EXPECT_EQ(cls, MpiCallClass::P2p);
            EXPECT_EQ(col(e, cols::Mpi::Peer), (rank + 1) % ranks);
            EXPECT_EQ(col(e, cols::Mpi::Tag), 7);
            EXPECT_EQ(col(e, cols::Mpi::Bytes), 1024);
        } else if (e.name == "MPI_Recv") {
            // The source and size actually received, though the program ignored the status.
            EXPECT_EQ(col(e, cols::Mpi::Peer), (rank + ranks - 1) % ranks);
            EXPECT_EQ(col(e, cols::Mpi::Tag), 7);
            EXPECT_EQ(col(e, cols::Mpi::RecvBytes), 1024);
        } else if (e.name == "MPI_Isend") {
            EXPECT_EQ(col(e, cols::Mpi::Bytes), 64 * 8);
            EXPECT_NE(col(e, cols::Mpi::Request), 0);
        } else if (e.name == "MPI_Bcast") {
            EXPECT_EQ(cls, MpiCallClass::Collective);
            EXPECT_EQ(col(e, cols::Mpi::Root), 0);
            EXPECT_EQ(col(e, cols::Mpi::Bytes), 800);
        } else if (e.name == "MPI_Reduce") {
            EXPECT_EQ(col(e, cols::Mpi::Root), ranks - 1);
        } else if (e.name == "MPI_Waitall") {
            EXPECT_EQ(cls, MpiCallClass::StartWait);
        } else if (e.name == "MPI_Comm_split" || e.name == "MPI_Init") {
            EXPECT_EQ(cls, MpiCallClass::Other);
        }
    }
}

TEST(MpiCapture, ProfilerAroundMpirunRecordsEveryCallOfEveryRank) {
    REQUIRE_MPI();
    CaptureDir dir;
    const std::string out = dir.file("all.rep");
    const int ranks = 4;
    ASSERT_EQ(profile(out, {"-t", "mpi,osrt", "-s", "none"},
                      cat(mpirun(ranks), {client("mpi_counts")})),
              0);
    auto r = load(out);
    ASSERT_TRUE(r);
    std::vector<const Process*> rankProcs;
    for (const auto& p : r->processes)
        if (p.mpiRank >= 0) rankProcs.push_back(&p);
    ASSERT_EQ(rankProcs.size(), static_cast<size_t>(ranks));
    std::vector<int> seen;
    for (const Process* p : rankProcs) {
        seen.push_back(p->mpiRank);
        EXPECT_EQ(p->mpiWorldSize, ranks);
        checkRank(*r, *p, ranks);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(diagnostic(*r, "mpi.not_found"), 0);
    // The ranks of the one report side by side: MPI_Iprobe ran rank + 1 times on each.
    int code = 0;
    const std::string csv = runCapturingStdout({SIGHTLINE_CLI, "stats", "-r", "mpi_event_sum",
                                                "--per-rank", "--format", "csv", out},
                                               &code);
    ASSERT_EQ(code, 0) << csv;
    EXPECT_NE(csv.find("Name,Ranks,Min Total Time (ns)"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",Rank 0 (ns),Rank 1 (ns),Rank 2 (ns),Rank 3 (ns)"), std::string::npos)
        << csv;
    EXPECT_NE(csv.find("\nMPI_Iprobe,4,"), std::string::npos) << csv;
    // The same report exported to nsys's SQLite and read back gives each rank only its own
    // process's calls (an import is built whole; the per-rank read drops the other ranks' tracks).
    const std::string sqlite = dir.file("ranks.sqlite");
    const std::string exported = runCapturingStdout(
        {SIGHTLINE_CLI, "export", "--type", "sqlite", "-o", sqlite, out}, &code);
    ASSERT_EQ(code, 0) << exported;
    const std::string fromExport = runCapturingStdout(
        {SIGHTLINE_CLI, "stats", "-r", "mpi_event_sum", "--per-rank", "--format", "csv", sqlite},
        &code);
    ASSERT_EQ(code, 0) << fromExport;
    EXPECT_EQ(fromExport, csv);
}

// The same wrappers compiled against MPICH's header (its handles are ints, OpenMPI's pointers),
// under MPICH's own launcher.
TEST(MpiCapture, MpichProgramUnderMpiexecWithMpiImplMpich) {
    if (std::string(SIGHTLINE_MPIEXEC_MPICH).empty() || !fs::exists(client("mpi_counts_mpich")) ||
        !fs::exists(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-mpi-mpich.so"))
        GTEST_SKIP() << "MPICH tests: built without MPICH (Debian: mpich, libmpich-dev)";
    CaptureDir dir;
    const std::string out = dir.file("mpich.rep");
    const int ranks = 4;
    ASSERT_EQ(profile(out, {"-t", "mpi", "--mpi-impl", "mpich", "-s", "none"},
                      {SIGHTLINE_MPIEXEC_MPICH, "-launcher", "fork", "-n", std::to_string(ranks),
                       client("mpi_counts_mpich")}),
              0);
    auto r = load(out);
    ASSERT_TRUE(r);
    std::vector<int> seen;
    for (const auto& p : r->processes) {
        if (p.mpiRank < 0) continue;
        seen.push_back(p.mpiRank);
        EXPECT_EQ(p.mpiWorldSize, ranks);
        checkRank(*r, p, ranks);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3}));
}

// nsys's default --mpi-impl (openmpi) on an MPICH program: Open MPI's module broke every MPI
// call (MPICH aborted each rank on a null communicator; MPI_STATUS_IGNORE, 1 in MPICH, was read
// as a status). The program says which MPI it runs (mpiexec.hydra; libmpich.so.12 for a rank
// profiled alone), and without --mpi-impl MPICH's module is taken; with the wrong --mpi-impl
// the profiler says so before the program starts.
TEST(MpiCapture, MpichProgramWithoutMpiImplIsTracedAsMpich) {
    if (std::string(SIGHTLINE_MPIEXEC_MPICH).empty() || !fs::exists(client("mpi_counts_mpich")) ||
        !fs::exists(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-mpi-mpich.so"))
        GTEST_SKIP() << "MPICH tests: built without MPICH (Debian: mpich, libmpich-dev)";
    CaptureDir dir;
    const std::string out = dir.file("default.rep");
    int code = 0;
    const std::string text = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-t", "mpi", "-s", "none", "-o", out, SIGHTLINE_MPIEXEC_MPICH, "-launcher",
         "fork", "-n", "2", client("mpi_counts_mpich")},
        &code);
    ASSERT_EQ(code, 0) << text;
    EXPECT_NE(text.find("tracing it with --mpi-impl=mpich"), std::string::npos) << text;
    auto r = load(out);
    ASSERT_TRUE(r);
    int ranks = 0;
    for (const auto& p : r->processes) ranks += p.mpiRank >= 0;
    EXPECT_EQ(ranks, 2);
    // One profiler per rank: the rank's executable links MPICH's library.
    ASSERT_EQ(exitCodeOf(runProcess({SIGHTLINE_MPIEXEC_MPICH, "-launcher", "fork", "-n", "2", SIGHTLINE_CLI,
                                     "profile", "-q", "true", "-t", "mpi", "-s", "none", "-o",
                                     dir.file("rank%q{PMI_RANK}"), client("mpi_counts_mpich")})),
              0);
    for (const char* rank : {"rank0.rep", "rank1.rep"}) {
        auto one = load(dir.file(rank));
        ASSERT_TRUE(one) << rank;
        EXPECT_EQ(one->processes[0].mpiWorldSize, 2) << rank;
    }
    // Asked for the other one: the user's choice (a wrapper may be named like a launcher), with a
    // warning before the program runs. -d 5: the wrong module may leave the program hanging.
    const std::string wrong = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-t", "mpi", "--mpi-impl", "openmpi", "-d", "5", "-o", dir.file("wrong.rep"),
         client("mpi_counts_mpich")},
        &code);
    const size_t warning = wrong.find("if it runs MPICH, use --mpi-impl=mpich");
    EXPECT_NE(warning, std::string::npos) << wrong;
    EXPECT_LT(warning, wrong.find("capture running")) << wrong;
}

// A rank whose program says nothing about its MPI (python3 with mpi4py, a shell script; here a
// shell that execs an MPICH client), started by MPICH's launcher: nsys's default --mpi-impl
// (openmpi) broke every MPI call and MPICH aborted each rank. The launcher's variables
// (PMI_RANK with PMI_FD) tell the profiler, which says so and takes MPICH's module.
TEST(MpiCapture, AnMpichRankWhoseProgramSaysNothingIsTracedAsMpich) {
    if (std::string(SIGHTLINE_MPIEXEC_MPICH).empty() || !fs::exists(client("mpi_counts_mpich")) ||
        !fs::exists(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-mpi-mpich.so"))
        GTEST_SKIP() << "MPICH tests: built without MPICH (Debian: mpich, libmpich-dev)";
    CaptureDir dir;
    int code = 0;
    const std::string text = runCapturingStdout(
        {SIGHTLINE_MPIEXEC_MPICH, "-launcher", "fork", "-n", "2", "/bin/sh", "-c", "\"$@\" 2>&1", "sh",
         SIGHTLINE_CLI, "profile", "-t", "mpi", "-s", "none", "-o", dir.file("rank%q{PMI_RANK}"),
         "/bin/sh", "-c", "exec \"$0\"", client("mpi_counts_mpich")},
        &code);
    ASSERT_EQ(code, 0) << text;
    EXPECT_NE(text.find("started by MPICH's launcher (PMI_RANK and PMI_FD set): tracing it with "
                        "--mpi-impl=mpich"),
              std::string::npos)
        << text;
    for (const char* rank : {"rank0.rep", "rank1.rep"}) {
        auto one = load(dir.file(rank));
        ASSERT_TRUE(one) << rank;
        int ranks = 0;
        for (const auto& p : one->processes)
            if (p.mpiRank >= 0) {
                ++ranks;
                EXPECT_EQ(p.mpiWorldSize, 2) << rank;
            }
        EXPECT_EQ(ranks, 1) << rank;
    }
}

// MPI-4's large-count functions (MPI_Send_c: an MPI_Count for each count) and the matched
// probe, which mpi4py 4 calls instead of MPI_Send, MPI_Recv and the collectives where the
// library has them (MPICH 4, Open MPI 5): an mpi4py program's report had only MPI_Init_thread,
// MPI_Barrier and MPI_Finalize. Each is recorded under its own name with the same columns; the
// nonblocking collectives (MPI-3) too.
TEST(MpiCapture, LargeCountFunctionsAndMatchedProbesAreRecorded) {
    if (std::string(SIGHTLINE_MPIEXEC_MPICH).empty() || !fs::exists(client("mpi_large_count_mpich")) ||
        !fs::exists(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-mpi-mpich.so"))
        GTEST_SKIP() << "MPICH tests: built without MPICH (Debian: mpich, libmpich-dev)";
    const std::vector<std::string> job = {SIGHTLINE_MPIEXEC_MPICH, "-launcher", "fork", "-n", "3",
                                          client("mpi_large_count_mpich")};
    const int plain = exitCodeOf(runProcess(job));
    if (plain == 77) GTEST_SKIP() << "this MPICH has no large-count functions (before MPI-4)";
    ASSERT_EQ(plain, 0);
    CaptureDir dir;
    const std::string out = dir.file("large.rep");
    ASSERT_EQ(profile(out, {"-t", "mpi", "-s", "none"}, job), 0);
    auto r = load(out);
    ASSERT_TRUE(r);
    const int ranks = 3;
    int seen = 0;
    for (const auto& p : r->processes) {
        if (p.mpiRank < 0) continue;
        ++seen;
        const int rank = p.mpiRank, next = (rank + 1) % ranks, prev = (rank + ranks - 1) % ranks;
        SCOPED_TRACE("rank " + std::to_string(rank));
        std::map<std::string, const Ev*> byName;
        std::map<std::string, int> counts;
        const auto all = events(*r, EventKind::Mpi);
        for (const Ev& e : all)
            if (e.pid == p.pid) ++counts[e.name], byName[e.name] = &e;
        EXPECT_EQ(counts, (std::map<std::string, int>{
                              {"MPI_Init", 1}, {"MPI_Send_c", 1}, {"MPI_Recv_c", 1},
                              {"MPI_Isend_c", 1}, {"MPI_Mprobe", 1}, {"MPI_Mrecv_c", 1},
                              {"MPI_Wait", 3}, {"MPI_Allreduce_c", 1}, {"MPI_Bcast_c", 1},
                              {"MPI_Allgather_c", 1}, {"MPI_Alltoallv_c", 1}, {"MPI_Ireduce", 1},
                              {"MPI_Iallgather_c", 1}, {"MPI_Finalize", 1}}));
        if (counts.size() != 14) continue;
        const Ev& send = *byName["MPI_Send_c"];
        EXPECT_EQ(col(send, cols::Mpi::Peer), next);
        EXPECT_EQ(col(send, cols::Mpi::Tag), 21);
        EXPECT_EQ(col(send, cols::Mpi::Bytes), 512);
        const Ev& recv = *byName["MPI_Recv_c"];
        EXPECT_EQ(col(recv, cols::Mpi::Peer), prev);
        EXPECT_EQ(col(recv, cols::Mpi::RecvBytes), 512);
        const Ev& probe = *byName["MPI_Mprobe"];  // asked for any source: the one it matched
        EXPECT_EQ(col(probe, cols::Mpi::Peer), prev);
        EXPECT_EQ(col(probe, cols::Mpi::Tag), 22);
        const Ev& mrecv = *byName["MPI_Mrecv_c"];
        EXPECT_EQ(col(mrecv, cols::Mpi::Peer), prev);
        EXPECT_EQ(col(mrecv, cols::Mpi::RecvBytes), 256);
        EXPECT_EQ(static_cast<MpiCallClass>(col(mrecv, cols::Mpi::CallClass)), MpiCallClass::P2p);
        const Ev& allreduce = *byName["MPI_Allreduce_c"];
        EXPECT_EQ(static_cast<MpiCallClass>(col(allreduce, cols::Mpi::CallClass)), MpiCallClass::Collective);
        EXPECT_EQ(col(allreduce, cols::Mpi::Bytes), 128);
        EXPECT_EQ(col(*byName["MPI_Bcast_c"], cols::Mpi::Bytes), 32);
        EXPECT_EQ(col(*byName["MPI_Allgather_c"], cols::Mpi::RecvBytes), 16);  // its recvcount, as MPI_Allgather
        EXPECT_EQ(col(*byName["MPI_Alltoallv_c"], cols::Mpi::Bytes), 8 * ranks);
        EXPECT_EQ(col(*byName["MPI_Alltoallv_c"], cols::Mpi::RecvBytes), 8 * ranks);
        const Ev& ireduce = *byName["MPI_Ireduce"];
        EXPECT_EQ(col(ireduce, cols::Mpi::Root), ranks - 1);
        EXPECT_EQ(col(ireduce, cols::Mpi::Bytes), 128);
        EXPECT_NE(col(ireduce, cols::Mpi::Request), 0);
        EXPECT_EQ(col(*byName["MPI_Iallgather_c"], cols::Mpi::Bytes), 16);
        EXPECT_NE(col(*byName["MPI_Iallgather_c"], cols::Mpi::Request), 0);
    }
    EXPECT_EQ(seen, ranks);
}

// One profiler per rank: each says which rank's its lines are (they interleave in one output).
TEST(MpiCapture, EachRanksProfilerSaysItsRank) {
    REQUIRE_MPI();
    CaptureDir dir;
    std::vector<std::string> args = {"/bin/sh", "-c", "\"$@\" 2>&1", "sh"};
    for (const auto& a : cat(mpirun(2), {SIGHTLINE_CLI, "profile", "-s", "none", "-o",
                                        dir.file("tag%q{OMPI_COMM_WORLD_RANK}"), "/bin/true"}))
        args.push_back(a);
    int code = 0;
    const std::string out = runCapturingStdout(args, &code);
    ASSERT_EQ(code, 0) << out;
    for (const char* rank : {"0", "1"})
        EXPECT_NE(out.find(std::string("sightline[rank ") + rank + "]: merged"), std::string::npos) << out;
}

TEST(MpiCapture, ProfilerInsideMpirunWritesAReportPerRank) {
    REQUIRE_MPI();
    CaptureDir dir;
    const int ranks = 3;
    int code = exitCodeOf(runProcess(cat(
        mpirun(ranks), {SIGHTLINE_CLI, "profile", "-q", "true", "-t", "mpi", "-s", "none", "-o",
                        dir.file("rank%q{OMPI_COMM_WORLD_RANK}"), client("mpi_counts")})));
    ASSERT_EQ(code, 0);
    for (int rank = 0; rank < ranks; ++rank) {
        auto r = load(dir.file("rank" + std::to_string(rank) + ".rep"));
        ASSERT_TRUE(r) << "rank " << rank;
        const Process* p = nullptr;
        for (const auto& q : r->processes)
            if (q.mpiRank >= 0) p = &q;
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(p->mpiRank, rank);
        checkRank(*r, *p, ranks);
        // The same counts as `sightline stats` gives them (Instances per function).
        int statsCode = 0;
        std::string csv = runCapturingStdout({SIGHTLINE_CLI, "stats", "-r", "mpi_event_sum",
                                              "--format", "csv",
                                              dir.file("rank" + std::to_string(rank) + ".rep")},
                                             &statsCode);
        ASSERT_EQ(statsCode, 0) << csv;
        std::map<std::string, int> fromStats;
        std::istringstream lines(csv);
        for (std::string line; std::getline(lines, line);) {
            std::vector<std::string> cells;
            std::stringstream cellStream(line);
            for (std::string c; std::getline(cellStream, c, ',');) cells.push_back(c);
            if (cells.size() == 9 && cells[8].rfind("MPI_", 0) == 0)
                fromStats[cells[8]] = std::stoi(cells[2]);
        }
        std::map<std::string, int> expected = kCallsPerRank;
        expected["MPI_Iprobe"] = rank + 1;
        EXPECT_EQ(fromStats, expected) << csv;
        // `sightline info` names the rank of the process.
        const std::string info = runCapturingStdout(
            {SIGHTLINE_CLI, "info", dir.file("rank" + std::to_string(rank) + ".rep")}, &statsCode);
        EXPECT_NE(info.find("MPI rank " + std::to_string(rank) + " of " + std::to_string(ranks)),
                  std::string::npos)
            << info;
    }
    // The reports of the ranks as one table: every call of mpi_counts ran on the 3 ranks.
    int code2 = 0;
    const std::string csv = runCapturingStdout(
        {SIGHTLINE_CLI, "stats", "-r", "mpi_event_sum", "--per-rank", "--format", "csv",
         dir.file("rank2.rep"), dir.file("rank0.rep"), dir.file("rank1.rep")},
        &code2);
    ASSERT_EQ(code2, 0) << csv;
    for (const auto& [name, n] : kCallsPerRank)
        EXPECT_NE(csv.find("\n" + name + ",3,"), std::string::npos) << name << "\n" << csv;
    // A rank given twice is refused.
    const std::string twice = runCapturingStdout(
        {SIGHTLINE_CLI, "stats", "-r", "mpi_event_sum", "--per-rank", dir.file("rank0.rep"),
         dir.file("rank0.rep")},
        &code2);
    EXPECT_NE(code2, 0);
    EXPECT_NE(twice.find("rank 0 is in more than one report"), std::string::npos) << twice;
    // Its tables go to the terminal: --output is refused, not ignored.
    const std::string withOutput = runCapturingStdout(
        {SIGHTLINE_CLI, "stats", "-r", "mpi_event_sum", "--per-rank", "-o", dir.file("x"),
         dir.file("rank0.rep"), dir.file("rank1.rep")},
        &code2);
    EXPECT_EQ(code2, 2);
    EXPECT_NE(withOutput.find("--output is not supported"), std::string::npos) << withOutput;
}

TEST(MpiCapture, MpiAbortEndsTheRunAsWithoutTheProfilerAndIsRecorded) {
    REQUIRE_MPI();
    CaptureDir dir;
    const auto program = cat(mpirun(2), {client("mpi_abort")});
    const int plain = exitCodeOf(runProcess(program));
    ASSERT_NE(plain, 0);
    const std::string out = dir.file("abort.rep");
    EXPECT_EQ(profile(out, {"-t", "mpi", "-s", "none"}, program), plain);
    auto r = load(out);
    ASSERT_TRUE(r);
    auto aborts = events(*r, EventKind::Mpi, "MPI_Abort");
    ASSERT_EQ(aborts.size(), 1u);
    for (const auto& p : r->processes) {
        if (p.pid == aborts[0].pid) {
            EXPECT_EQ(p.mpiRank, 1);
        }
    }
    EXPECT_EQ(events(*r, EventKind::Mpi, "MPI_Barrier").size(), 2u);
    // The other rank was killed by mpirun inside an MPI_Recv that never matched: the call is
    // there, ending when the rank did, and counted (it was lost: the rank looked idle).
    auto recvs = events(*r, EventKind::Mpi, "MPI_Recv");
    ASSERT_EQ(recvs.size(), 1u);
    EXPECT_NE(recvs[0].pid, aborts[0].pid);
    EXPECT_GT(recvs[0].end, recvs[0].start);
    EXPECT_GE(recvs[0].end, aborts[0].start);
    EXPECT_EQ(diagnostic(*r, "mpi.calls_unfinished", recvs[0].pid), 1);
}

// A program that leaves a blocked MPI call with siglongjmp (a SIGALRM timeout) behaves as
// without the profiler: it crashed in exit() (the module's record of the abandoned call pointed
// at its frame), and the calls after it went unrecorded (taken as nested in it).
TEST(MpiCapture, CallLeftWithSiglongjmpChangesNothingAndLaterCallsAreRecorded) {
    REQUIRE_MPI();
    CaptureDir dir;
    const auto program = cat(mpirun(1), {client("mpi_longjmp")});
    const int plain = exitCodeOf(runProcess(program));
    ASSERT_EQ(plain, 3);
    const std::string out = dir.file("longjmp.rep");
    EXPECT_EQ(profile(out, {"-t", "mpi", "-s", "none"}, program), 3);
    auto r = load(out);
    ASSERT_TRUE(r);
    EXPECT_EQ(events(*r, EventKind::Mpi, "MPI_Barrier").size(), 1u);
    EXPECT_EQ(events(*r, EventKind::Mpi, "MPI_Comm_size").size() +
                  events(*r, EventKind::Mpi, "MPI_Recv").size(),
              0u);  // not traced; abandoned, so never recorded
    for (const auto& p : r->processes) {
        if (p.mpiRank == 0) {
            EXPECT_EQ(p.exitSignal, 0);
        }
    }
}

// A thread blocked in MPI_Recv whose signal handler, on an alternate stack above the thread's,
// calls MPI: the receive is recorded (the handler's call was taken as proof the receive had
// been left, and the receive went unrecorded); the handler's call, made inside it, is not.
TEST(MpiCapture, AnMpiCallInAHandlerOnAnAlternateStackLeavesTheBlockedCallRecorded) {
    REQUIRE_MPI();
    CaptureDir dir;
    const std::string out = dir.file("alt.rep");
    ASSERT_EQ(profile(out, {"-t", "mpi", "-s", "none"}, cat(mpirun(1), {client("mpi_altstack")})), 0);
    auto r = load(out);
    ASSERT_TRUE(r);
    auto recvs = events(*r, EventKind::Mpi, "MPI_Recv");
    ASSERT_EQ(recvs.size(), 1u);
    EXPECT_GT(recvs[0].end - recvs[0].start, 300'000'000);  // blocked about 400 ms
    EXPECT_EQ(events(*r, EventKind::Mpi, "MPI_Iprobe").size(), 0u);
}

// MPI reached through a library the program loads with dlopen(RTLD_LOCAL), as Python loads
// mpi4py: libmpi is outside the global scope, where RTLD_NEXT looks for PMPI_ functions.
TEST(MpiCapture, MpiInALibraryLoadedWithRtldLocalIsTraced) {
    REQUIRE_MPI();
    CaptureDir dir;
    const std::string out = dir.file("local.rep");
    ASSERT_EQ(profile(out, {"-t", "mpi", "-s", "none"},
                      cat(mpirun(2), {client("mpi_dlopen"), client("libmpi_plugin.so")})),
              0);
    auto r = load(out);
    ASSERT_TRUE(r);
    std::vector<int> ranks;
    for (const auto& p : r->processes) {
        if (p.mpiRank < 0) continue;
        ranks.push_back(p.mpiRank);
        std::map<std::string, int> counts;
        for (const Ev& e : events(*r, EventKind::Mpi))
            if (e.pid == p.pid) ++counts[e.name];
        EXPECT_EQ(counts, (std::map<std::string, int>{
                              {"MPI_Init", 1}, {"MPI_Allreduce", 2}, {"MPI_Finalize", 1}}))
            << "rank " << p.mpiRank;
    }
    std::sort(ranks.begin(), ranks.end());
    EXPECT_EQ(ranks, (std::vector<int>{0, 1}));
}

TEST(MpiCapture, ProgramWithoutMpiGetsANoteNotAnError) {
    REQUIRE_MPI();
    CaptureDir dir;
    const std::string out = dir.file("plain.rep");
    int code = 0;
    std::string text = runCapturingStdout({SIGHTLINE_CLI, "profile", "-f", "true", "-t",
                                           "mpi,osrt", "-s", "none", "-o", out,
                                           client("exit_code"), "5"},
                                          &code);
    EXPECT_EQ(code, 5) << text;
    const size_t note = text.find("note: mpi.not_found");
    EXPECT_NE(note, std::string::npos) << text;
    EXPECT_NE(text.find("-t mpi: no process of the program made an MPI call", note),
              std::string::npos)
        << text;
    auto r = load(out);
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "mpi.not_found"), 1);
}

TEST(MpiCapture, UnknownOrMissingImplementationIsRefusedBeforeTheProgramRuns) {
    CaptureDir dir;
    const std::string marker = dir.file("ran");
    int code = 0;
    std::string text = runCapturingStdout({SIGHTLINE_CLI, "profile", "-t", "mpi", "--mpi-impl",
                                           "lam", "-o", dir.file("x"), "/usr/bin/touch", marker},
                                          &code);
    EXPECT_NE(code, 0);
    EXPECT_NE(text.find("mpi-impl"), std::string::npos) << text;
    EXPECT_FALSE(fs::exists(marker));
    // A known implementation whose module the installation lacks: said before the program runs.
    // The installation is a module directory with only the preloaded module in it.
    const std::string modules = dir.file("modules");
    fs::create_directory(modules);
    fs::create_symlink(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-inject.so",
                       modules + "/libsightline-inject.so");
    text = runCapturingStdout({"/usr/bin/env", "SIGHTLINE_INJECT_DIR=" + modules, SIGHTLINE_CLI,
                               "profile", "-t", "mpi", "--mpi-impl", "mpich", "-o", dir.file("y"),
                               "/usr/bin/touch", marker},
                              &code);
    EXPECT_NE(code, 0);
    EXPECT_NE(text.find("no module for mpich"), std::string::npos) << text;
    EXPECT_NE(text.find("libmpich-dev"), std::string::npos) << text;
    EXPECT_FALSE(fs::exists(marker));
}

}  // namespace
}  // namespace sl::test
