// -t cublas,cudnn,nccl end to end: real cuBLAS (and cuBLASLt, traced by -t cublas), cuDNN and
// NCCL (the CUDA toolkit's libraries)
// called by a program linked with them and by one that opens them with dlopen and takes every
// function from dlsym(handle, ...). Without a GPU the calls fail; they are recorded with the
// status they returned. Counts, columns, the stats reports, the SQLite export, and the bad
// inputs (a program without the libraries; the libraries not asked for).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "model/analysis/CudaLibCall.h"
#include "tests/capture/CaptureTestUtil.h"
#include "tests/export/ExportTestUtil.h"

namespace sl::test {
namespace {

namespace fs = std::filesystem;
using analysis::CudaLibCall;
using analysis::cudaLibCallAt;

constexpr int kSgemms = 4;  // and as many cublasLtMatmul calls
constexpr uint64_t kFakeStream = 0x5150;  // cudalibs_calls.h: FAKE_STREAM

bool haveModules(std::string* why) {
    for (const char* m : {"cublas", "cudnn", "nccl"})
        if (!fs::exists(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-" + m + ".so")) {
            *why = std::string("libsightline-") + m + ".so was not built (no CUDA toolkit headers)";
            return false;
        }
    if (!fs::exists(client("cudalibs_linked"))) {
        *why = "the cuBLAS/cuDNN/NCCL test programs were not built";
        return false;
    }
    return true;
}

#define REQUIRE_CUDALIBS()                                                   \
    do {                                                                     \
        std::string why_;                                                    \
        if (!haveModules(&why_)) GTEST_SKIP() << "CUDA library tests: " << why_; \
    } while (0)

std::map<std::string, int> countsOf(const Report& r, EventKind k) {
    std::map<std::string, int> n;
    for (const Ev& e : events(r, k)) ++n[e.name];
    return n;
}

const Ev& only(const Report& r, EventKind k, const std::string& name) {
    static std::vector<Ev> keep;
    keep = events(r, k, name);
    EXPECT_EQ(keep.size(), 1u) << name;
    if (keep.empty()) std::abort();
    return keep[0];
}

// Runs `program kSgemms` under -t cublas,cudnn,nccl and checks every recorded call.
// `viaOwnHandle`: the program also calls cublasGetVersion_v2 and cublasLtGetVersion found with
// dlsym(dlopen(NULL)).
void checkProgram(const std::string& program, const std::string& expectedNextModule, bool viaOwnHandle) {
    const int cublasLtCalls = 4 + kSgemms + (viaOwnHandle ? 1 : 0);
    const int cublasCalls = 3 + kSgemms + (viaOwnHandle ? 1 : 0) + cublasLtCalls;
    CaptureDir dir;
    const std::string out = dir.file("libs.rep");
    int code = 0;
    const std::string text = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-f", "true", "-t", "cublas,cudnn,nccl", "-s", "none", "-o", out,
         client(program), std::to_string(kSgemms)},
        &code);
    ASSERT_EQ(code, 0) << text;
    auto r = load(out);
    ASSERT_TRUE(r);
    std::map<std::string, int> cublas{{"cublasCreate_v2", 1}, {"cublasSetStream_v2", 1},
                                      {"cublasSgemm_v2", kSgemms}, {"cublasDestroy_v2", 1},
                                      {"cublasLtCreate", 1}, {"cublasLtMatmulDescCreate", 1},
                                      {"cublasLtMatmul", kSgemms}, {"cublasLtMatmulDescDestroy", 1},
                                      {"cublasLtDestroy", 1}};
    if (viaOwnHandle) {
        cublas["cublasGetVersion_v2"] = 1;
        cublas["cublasLtGetVersion"] = 1;
        EXPECT_NE(text.find("cublasGetVersion_v2 0\n"), std::string::npos) << text;  // no device needed
        // Called while only libcublasLt was open: its real function was found there.
        EXPECT_NE(text.find("cublasLtGetVersion 1"), std::string::npos) << text;  // 13xxxx
    }
    EXPECT_EQ(countsOf(*r, EventKind::Cublas), cublas);
    EXPECT_EQ(countsOf(*r, EventKind::Cudnn),
              (std::map<std::string, int>{{"cudnnGetVersion", 1}, {"cudnnCreate", 1},
                                          {"cudnnSetStream", 1}, {"cudnnCreateTensorDescriptor", 1},
                                          {"cudnnSetTensor4dDescriptor", 1},
                                          {"cudnnDestroyTensorDescriptor", 1}, {"cudnnDestroy", 1}}));
    EXPECT_EQ(countsOf(*r, EventKind::Nccl),
              (std::map<std::string, int>{{"ncclGetVersion", 1}, {"ncclCommInitAll", 1},
                                          {"ncclAllReduce", 1}, {"ncclBroadcast", 1},
                                          {"ncclSend", 1}, {"ncclCommDestroy", 1}}));
    for (EventKind k : {EventKind::Cublas, EventKind::Cudnn, EventKind::Nccl})
        for (const Ev& e : events(*r, k)) {
            EXPECT_EQ(e.tid, e.pid) << e.name;  // the program's main thread
            EXPECT_LE(e.start, e.end) << e.name;
        }
    EXPECT_EQ(diagnostic(*r, "cublas.not_found") + diagnostic(*r, "cudnn.not_found") +
                  diagnostic(*r, "nccl.not_found"),
              0);

    // The status each call returned, as the program saw it.
    const CudaLibCall create = cudaLibCallAt(*only(*r, EventKind::Cublas, "cublasCreate_v2").track,
                                             only(*r, EventKind::Cublas, "cublasCreate_v2").index);
    EXPECT_NE(text.find("cublasCreate " + std::to_string(create.status) + "\n"), std::string::npos)
        << text;
    const Ev& setStream = only(*r, EventKind::Cublas, "cublasSetStream_v2");
    const CudaLibCall set = cudaLibCallAt(*setStream.track, setStream.index);
    if (create.status != 0) {
        // No device: the handle was never made, so the program passed the made-up stream.
        EXPECT_EQ(set.stream, kFakeStream);
        EXPECT_NE(set.status, 0);
        for (const Ev& e : events(*r, EventKind::Cublas, "cublasSgemm_v2"))
            EXPECT_EQ(cudaLibCallAt(*e.track, e.index).status, create.status);
    } else {
        // A device: every call on the handle carries it and the stream SetStream gave it.
        for (const Ev& e : events(*r, EventKind::Cublas, "cublasSgemm_v2")) {
            EXPECT_EQ(cudaLibCallAt(*e.track, e.index).handle, set.handle);
            EXPECT_EQ(cudaLibCallAt(*e.track, e.index).stream, set.stream);
        }
    }
    // cuBLASLt: cublasLtMatmul's stream is its own argument, its handle the one Create made.
    const Ev& ltCreate = only(*r, EventKind::Cublas, "cublasLtCreate");
    const CudaLibCall ltCreated = cudaLibCallAt(*ltCreate.track, ltCreate.index);
    EXPECT_NE(text.find("cublasLtCreate " + std::to_string(ltCreated.status) + "\n"), std::string::npos)
        << text;
    for (const Ev& e : events(*r, EventKind::Cublas, "cublasLtMatmul")) {
        const CudaLibCall c = cudaLibCallAt(*e.track, e.index);
        EXPECT_NE(c.status, 0);  // null matrix layouts: an error with or without a device
        EXPECT_EQ(c.handle, ltCreated.handle);
        EXPECT_EQ(c.stream, ltCreated.status == 0 ? 0u : kFakeStream);
    }
    const Ev& cudnnCreate = only(*r, EventKind::Cudnn, "cudnnCreate");
    EXPECT_NE(text.find("cudnnCreate " +
                        std::to_string(cudaLibCallAt(*cudnnCreate.track, cudnnCreate.index).status) +
                        "\n"),
              std::string::npos)
        << text;

    // NCCL: each operation's arguments (cudalibs_calls.h: runNccl).
    auto nccl = [&](const std::string& name) {
        const Ev& e = only(*r, EventKind::Nccl, name);
        return cudaLibCallAt(*e.track, e.index);
    };
    const CudaLibCall all = nccl("ncclAllReduce"), bcast = nccl("ncclBroadcast"), send = nccl("ncclSend");
    EXPECT_EQ(all.count, 1024);
    EXPECT_EQ(all.bytes, 4096);
    EXPECT_EQ(analysis::ncclDataTypeName(all.datatype), "ncclFloat32");
    EXPECT_EQ(analysis::ncclRedOpName(all.redop), "ncclSum");
    EXPECT_EQ(all.peer, -1);
    EXPECT_EQ(all.stream, kFakeStream);
    EXPECT_EQ(bcast.count, 256);
    EXPECT_EQ(bcast.bytes, 2048);
    EXPECT_EQ(analysis::ncclDataTypeName(bcast.datatype), "ncclFloat64");
    EXPECT_EQ(bcast.peer, 1);  // the root
    EXPECT_EQ(bcast.redop, -1);
    EXPECT_EQ(send.count, 100);
    EXPECT_EQ(send.bytes, 400);
    EXPECT_EQ(send.peer, 1);
    EXPECT_EQ(nccl("ncclCommInitAll").ranks, 2);
    EXPECT_EQ(nccl("ncclGetVersion").status, 0);  // needs no device
    EXPECT_EQ(nccl("ncclGetVersion").count, -1);
    if (!expectedNextModule.empty()) {
        EXPECT_NE(text.find("RTLD_NEXT ncclGetVersion: " + expectedNextModule), std::string::npos)
            << text;
    }

    // The stats reports count the same calls.
    const std::string csv = runCapturingStdout(
        {SIGHTLINE_CLI, "stats", "-r", "cublas_api_sum,cudnn_api_sum,nccl_api_sum,cudalib_api_trace",
         "-f", "csv", out},
        &code);
    ASSERT_EQ(code, 0) << csv;
    std::istringstream lines(csv);
    std::string line;
    int sgemmRows = 0, matmulRows = 0, traceRows = 0;
    while (std::getline(lines, line)) {
        // cublas_api_sum: Time (%),Total Time (ns),Num Calls,...,Name
        if (line.size() > 15 && line.ends_with(",cublasSgemm_v2")) {
            std::vector<std::string> f;
            std::istringstream cells(line);
            for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
            ASSERT_GE(f.size(), 3u) << line;
            EXPECT_EQ(f[2], std::to_string(kSgemms)) << line;
            ++sgemmRows;
        }
        if (line.size() > 15 && line.ends_with(",cublasLtMatmul")) {
            std::vector<std::string> f;
            std::istringstream cells(line);
            for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
            ASSERT_GE(f.size(), 3u) << line;
            EXPECT_EQ(f[2], std::to_string(kSgemms)) << line;
            ++matmulRows;
        }
        if (line.starts_with("cuBLAS,") || line.starts_with("cuDNN,") || line.starts_with("NCCL,"))
            ++traceRows;
    }
    EXPECT_EQ(sgemmRows, 1) << csv;
    EXPECT_EQ(matmulRows, 1) << csv;
    EXPECT_EQ(traceRows, cublasCalls + 7 + 6) << csv;
    EXPECT_NE(csv.find("NCCL,"), std::string::npos);
    EXPECT_NE(csv.find(",ncclAllReduce,"), std::string::npos);

    // The SQLite export: nsys's CUBLAS_EVENTS and CUDNN_EVENTS, and NCCL_EVENTS.
    const std::string db = dir.file("libs.sqlite");
    ASSERT_EQ(exitCodeOf(runProcess({SIGHTLINE_CLI, "export", "--type", "sqlite", "-o", db, out})), 0);
    EXPECT_EQ(query(db, "SELECT COUNT(*), MIN(eventClass), MAX(eventClass) FROM CUBLAS_EVENTS"),
              (Rows{{std::to_string(cublasCalls), "29", "29"}}));
    EXPECT_EQ(query(db, "SELECT COUNT(*), MIN(eventClass) FROM CUDNN_EVENTS"), (Rows{{"7", "28"}}));
    EXPECT_EQ(query(db, "SELECT COUNT(*) FROM CUBLAS_EVENTS e JOIN StringIds s ON e.nameId = s.id "
                        "WHERE s.value = 'cublasSgemm_v2'"),
              (Rows{{std::to_string(kSgemms)}}));
    EXPECT_EQ(query(db, "SELECT COUNT(*) FROM CUBLAS_EVENTS e JOIN StringIds s ON e.nameId = s.id "
                        "WHERE s.value LIKE 'cublasLt%'"),
              (Rows{{std::to_string(cublasLtCalls)}}));
    EXPECT_EQ(query(db, "SELECT e.count, e.size, e.dataType, e.redOp, e.peerRank FROM NCCL_EVENTS e "
                        "JOIN StringIds s ON e.nameId = s.id WHERE s.value = 'ncclAllReduce'"),
              (Rows{{"1024", "4096", "7", "0", "NULL"}}));

    // Imported back from the export: the same calls with the same columns.
    const std::string back = dir.file("back.rep");
    ASSERT_EQ(exitCodeOf(runProcess({SIGHTLINE_CLI, "import", db, "-o", back})), 0);
    auto b = load(back);
    ASSERT_TRUE(b);
    for (EventKind k : {EventKind::Cublas, EventKind::Cudnn, EventKind::Nccl})
        EXPECT_EQ(countsOf(*b, k), countsOf(*r, k)) << static_cast<int>(k);
    const Ev& imported = only(*b, EventKind::Nccl, "ncclAllReduce");
    const CudaLibCall again = cudaLibCallAt(*imported.track, imported.index);
    EXPECT_EQ(again.bytes, all.bytes);
    EXPECT_EQ(again.stream, all.stream);
    EXPECT_EQ(again.datatype, all.datatype);
    EXPECT_EQ(again.redop, all.redop);

    // Chrome JSON: each call an event of its library's category.
    const std::string json = dir.file("libs.json");
    ASSERT_EQ(exitCodeOf(runProcess({SIGHTLINE_CLI, "export", "--type", "json", "-o", json, out})), 0);
    const std::string text2 = slurp(json);
    auto inCategory = [&](const std::string& cat) {
        size_t n = 0;
        for (size_t at = text2.find("\"cat\":\"" + cat + "\""); at != std::string::npos;
             at = text2.find("\"cat\":\"" + cat + "\"", at + 1))
            ++n;
        return n;
    };
    EXPECT_EQ(inCategory("cublas"), static_cast<size_t>(cublasCalls));
    EXPECT_EQ(inCategory("cudnn"), 7u);
    EXPECT_EQ(inCategory("nccl"), 6u);
    EXPECT_NE(text2.find("\"datatype\":\"ncclFloat32\",\"op\":\"ncclSum\""), std::string::npos);
}

TEST(CudaLibsCapture, LinkedProgramCallsAreRecordedWithTheirArguments) {
    REQUIRE_CUDALIBS();
    checkProgram("cudalibs_linked", "", false);
}

// dlopen(RTLD_LOCAL) + dlsym(handle, name): the functions come from the handles, not from the
// symbol lookups the preloaded modules take part in. dlsym(RTLD_NEXT) still answers for its
// caller (the program: the next object is the first module that defines the name), and a
// function found through the program's own handle (the wrapper itself) works.
TEST(CudaLibsCapture, DlopenedLibrariesAreRecordedToo) {
    REQUIRE_CUDALIBS();
    checkProgram("cudalibs_dlopen", std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-nccl.so", true);
}

// With a stand-in NCCL that makes communicators without GPUs (tests/clients/cudalibs/fake_nccl.c:
// communicator 0x1000 + (ndev << 8) + i is rank i of ndev): every operation carries its
// communicator and the rank and size the profiler asked of it once.
TEST(CudaLibsCapture, NcclCallsCarryTheCommunicatorsRankAndSize) {
    REQUIRE_CUDALIBS();
    const std::string fakeDir = std::string(SIGHTLINE_CLIENTS) + "/fake_nccl";
    if (!fs::exists(fakeDir + "/libnccl.so.2")) GTEST_SKIP() << "the stand-in NCCL was not built";
    CaptureDir dir;
    const std::string out = dir.file("fake.rep");
    int code = 0;
    const std::string text = runCapturingStdout(
        {"/usr/bin/env", "LD_LIBRARY_PATH=" + fakeDir, SIGHTLINE_CLI, "profile", "-f", "true", "-t", "nccl",
         "-s", "none", "-o", out, client("cudalibs_linked"), "1"},
        &code);
    ASSERT_EQ(code, 0) << text;
    ASSERT_NE(text.find("nccl version 99999, ncclCommInitAll 0"), std::string::npos) << text;
    auto r = load(out);
    ASSERT_TRUE(r);
    constexpr uint64_t kComm0 = 0x1000 + (2 << 8);
    const std::vector<Ev> calls = events(*r, EventKind::Nccl);
    ASSERT_EQ(calls.size(), 6u);
    for (const Ev& e : calls) {
        const CudaLibCall c = cudaLibCallAt(*e.track, e.index);
        EXPECT_EQ(c.status, 0) << e.name;
        if (e.name == "ncclGetVersion") {
            EXPECT_EQ(c.handle, 0u);
            continue;
        }
        EXPECT_EQ(c.handle, kComm0) << e.name;  // ncclCommInitAll: the first communicator it made
        EXPECT_EQ(c.ranks, 2) << e.name;
        if (e.name != "ncclCommInitAll") {
            EXPECT_EQ(c.rank, 0) << e.name;
        }
    }
}

// With a stand-in cuBLAS and cuBLASLt that make handles without GPUs
// (tests/clients/cudalibs/fake_cublas.c, fake_cublaslt.c): the handle cublasCreate made is its
// event's handle, and the stream cublasSetStream gave it is every later call's stream
// (cublasSgemm has no stream argument), up to cublasDestroy. cuBLASLt's calls carry the handle
// cublasLtCreate made and cublasLtMatmul its own stream argument. The stand-in Sgemm calls
// cublasLtGetVersion, as cuBLAS's GEMMs call cuBLASLt: not recorded (a call inside a call).
TEST(CudaLibsCapture, CublasCallsCarryTheStreamTheirHandleWasGiven) {
    REQUIRE_CUDALIBS();
    const std::string fakeDir = std::string(SIGHTLINE_CLIENTS) + "/fake_cublas";
    if (!fs::exists(fakeDir + "/libcublas.so.13")) GTEST_SKIP() << "the stand-in cuBLAS was not built";
    CaptureDir dir;
    const std::string out = dir.file("fake.rep");
    int code = 0;
    const std::string text = runCapturingStdout(
        {"/usr/bin/env", "LD_LIBRARY_PATH=" + fakeDir, "SL_TEST_STREAM=7777", SIGHTLINE_CLI, "profile", "-f",
         "true", "-t", "cublas", "-s", "none", "-o", out, client("cudalibs_linked"), "3"},
        &code);
    ASSERT_EQ(code, 0) << text;
    ASSERT_NE(text.find("cublasCreate 0\n"), std::string::npos) << text;
    ASSERT_NE(text.find("cublasLtCreate 0\n"), std::string::npos) << text;
    auto r = load(out);
    ASSERT_TRUE(r);
    std::vector<Ev> calls, lt;
    for (const Ev& e : events(*r, EventKind::Cublas)) (e.name.starts_with("cublasLt") ? lt : calls).push_back(e);
    std::sort(calls.begin(), calls.end(), [](const Ev& a, const Ev& b) { return a.start < b.start; });
    std::sort(lt.begin(), lt.end(), [](const Ev& a, const Ev& b) { return a.start < b.start; });
    // Create, MatmulDescCreate, Matmul x 3, MatmulDescDestroy, Destroy; no GetVersion.
    ASSERT_EQ(lt.size(), 7u);
    EXPECT_EQ(lt[0].name, "cublasLtCreate");
    EXPECT_EQ(lt[6].name, "cublasLtDestroy");
    for (const Ev& e : lt) {
        const CudaLibCall c = cudaLibCallAt(*e.track, e.index);
        EXPECT_EQ(c.status, 0) << e.name;
        const bool onHandle = e.name == "cublasLtCreate" || e.name == "cublasLtMatmul" || e.name == "cublasLtDestroy";
        EXPECT_EQ(c.handle, onHandle ? 0xb1a7u : 0u) << e.name;
        EXPECT_EQ(c.stream, e.name == "cublasLtMatmul" ? 0x7777u : 0u) << e.name;
    }
    ASSERT_EQ(calls.size(), 6u);
    EXPECT_EQ(calls[0].name, "cublasCreate_v2");
    EXPECT_EQ(calls[5].name, "cublasDestroy_v2");
    for (const Ev& e : calls) {
        const CudaLibCall c = cudaLibCallAt(*e.track, e.index);
        EXPECT_EQ(c.status, 0) << e.name;
        EXPECT_EQ(c.handle, 0xb1a5u) << e.name;
        EXPECT_EQ(c.stream, e.name == "cublasCreate_v2" ? 0u : 0x7777u) << e.name;
    }
}

TEST(CudaLibsCapture, ProgramWithoutTheLibrariesGetsNotesNotErrors) {
    REQUIRE_CUDALIBS();
    CaptureDir dir;
    const std::string out = dir.file("plain.rep");
    int code = 0;
    const std::string text = runCapturingStdout({SIGHTLINE_CLI, "profile", "-f", "true", "-t",
                                                 "cublas,cudnn,nccl,osrt", "-s", "none", "-o", out,
                                                 client("exit_code"), "5"},
                                                &code);
    EXPECT_EQ(code, 5) << text;
    EXPECT_NE(text.find("note: cublas.not_found"), std::string::npos) << text;
    EXPECT_NE(text.find("-t nccl: no process of the program made a NCCL call"), std::string::npos)
        << text;
    auto r = load(out);
    ASSERT_TRUE(r);
    for (const char* d : {"cublas.not_found", "cudnn.not_found", "nccl.not_found"})
        EXPECT_EQ(diagnostic(*r, d), 1) << d;
}

// A slow OS runtime call made inside a traced library (the stand-in ncclCommDestroy sleeps 3 ms):
// its native stack goes from the library's function straight to the program, without the
// profiler's wrapper (libsightline-nccl.so) between them.
TEST(CudaLibsCapture, StacksInsideALibraryLeaveOutTheWrapper) {
    REQUIRE_CUDALIBS();
    const std::string fakeDir = std::string(SIGHTLINE_CLIENTS) + "/fake_nccl";
    if (!fs::exists(fakeDir + "/libnccl.so.2")) GTEST_SKIP() << "the stand-in NCCL was not built";
    CaptureDir dir;
    const std::string out = dir.file("bt.rep");
    int code = 0;
    const std::string text = runCapturingStdout(
        {"/usr/bin/env", "LD_LIBRARY_PATH=" + fakeDir, SIGHTLINE_CLI, "profile", "-f", "true", "-t",
         "nccl,osrt", "--osrt-threshold", "0", "--osrt-backtrace-threshold", "1000000", "-s", "none",
         "-o", out, client("cudalibs_linked"), "1"},
        &code);
    ASSERT_EQ(code, 0) << text;
    auto r = load(out);
    ASSERT_TRUE(r);
    size_t inside = 0;
    for (const Ev& e : events(*r, EventKind::OsRuntime)) {
        const CallStack* bt = r->backtraceOf(EventKind::OsRuntime, e.pid, e.tid, e.start);
        if (!bt || bt->frames.empty()) continue;
        const auto& leaf = r->stackFrames.at(bt->frames[0]);
        if (r->str(leaf.function) != "ncclCommDestroy") continue;
        ++inside;
        EXPECT_NE(r->str(leaf.module).find("fake_nccl/libnccl.so"), std::string::npos);
        for (uint32_t f : bt->frames)
            EXPECT_EQ(r->str(r->stackFrames.at(f).module).find("/sightline/libsightline-"),
                      std::string::npos)
                << r->str(r->stackFrames.at(f).function) << " in " << r->str(r->stackFrames.at(f).module);
        ASSERT_GE(bt->frames.size(), 2u);
        EXPECT_TRUE(r->str(r->stackFrames.at(bt->frames[1]).module).ends_with("/cudalibs_linked"))
            << r->str(r->stackFrames.at(bt->frames[1]).module);
    }
    EXPECT_EQ(inside, 1u) << "the 3 ms sleep inside ncclCommDestroy, with its stack";
}

// Not asked for: the modules are not preloaded and nothing of the libraries is recorded.
TEST(CudaLibsCapture, LibrariesNotAskedForAreNotTraced) {
    REQUIRE_CUDALIBS();
    CaptureDir dir;
    const std::string out = dir.file("cuda.rep");
    ASSERT_EQ(profile(out, {"-t", "osrt", "-s", "none"}, {client("cudalibs_linked"), "2"}), 0);
    auto r = load(out);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->eventCount(EventKind::Cublas) + r->eventCount(EventKind::Cudnn) +
                  r->eventCount(EventKind::Nccl),
              0u);
    EXPECT_EQ(diagnostic(*r, "cublas.not_found"), 0);
}

}  // namespace
}  // namespace sl::test
