// Unit tests of the sampling back end: the ELF symbol reader (this test's own PIE executable,
// the shared library of tests/clients, a stripped copy of it, broken files), the per-process
// mapping table (mmap, overlap, fork, exec) and CpuSampler::resolve/addTo on synthetic records.
#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "capture/launcher/CpuSampler.h"
#include "capture/launcher/ElfSymbols.h"
#include "capture/launcher/FrameSymbolizer.h"
#include "capture/launcher/KernelSymbols.h"
#include "capture/launcher/ModuleMaps.h"
#include "tests/capture/SelfMaps.h"
#include "capture/launcher/ProfileOptions.h"
#include "capture/launcher/SampleResolver.h"
#include "capture/launcher/SymbolPrefetch.h"

namespace sl::test {

__attribute__((noinline)) int symbolizerMarker(int x) {
    volatile int y = x;
    for (int i = 0; i < 3; ++i) y = y * 3 + i;
    return y;
}

namespace {

using capture::ElfSymbols;
using capture::ModuleMaps;
namespace fs = std::filesystem;

std::string selfExe() {
    return fs::canonical("/proc/self/exe").string();
}

std::string libPath() {
    return std::string(SIGHTLINE_CLIENTS) + "/libsampling_lib.so";
}

TEST(ElfSymbols, ResolvesAFunctionOfThisPieExecutable) {
    ModuleMaps maps;
    loadSelfMaps(maps, 1);
    const auto addr = reinterpret_cast<uint64_t>(&symbolizerMarker) + 4;
    const ModuleMaps::Location at = maps.lookup(1, addr);
    ASSERT_NE(at.module, ModuleMaps::kNoModule);
    EXPECT_EQ(maps.modules()[at.module], selfExe());
    auto elf = ElfSymbols::load(selfExe());
    ASSERT_TRUE(elf) << elf.error();
    EXPECT_GT(elf->symbolCount(), 100u);
    EXPECT_EQ(elf->functionAt(at.offset), "sl::test::symbolizerMarker(int)");
    // The first instruction too; and an offset outside any loadable segment is unresolved.
    EXPECT_EQ(elf->functionAt(at.offset - 4), "sl::test::symbolizerMarker(int)");
    EXPECT_EQ(elf->functionAt(uint64_t{1} << 40), "");
}

// Sections of this executable by name: (file offset, size).
std::map<std::string, std::pair<uint64_t, uint64_t>> sectionsOfSelf() {
    std::ifstream in(selfExe(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::map<std::string, std::pair<uint64_t, uint64_t>> out;
    const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(bytes.data());
    const auto* sh = reinterpret_cast<const Elf64_Shdr*>(bytes.data() + eh->e_shoff);
    const char* names = bytes.data() + sh[eh->e_shstrndx].sh_offset;
    for (size_t i = 0; i < eh->e_shnum; ++i)
        out[names + sh[i].sh_name] = {sh[i].sh_offset, sh[i].sh_size};
    return out;
}

// crti's _init has no size: it ends with .init, and the PLT stubs after it are "[plt]" (a
// sample there was shown as _init).
TEST(ElfSymbols, SizelessSymbolsEndWithTheirSectionAndPltStubsAreNamed) {
    auto elf = ElfSymbols::load(selfExe());
    ASSERT_TRUE(elf) << elf.error();
    const auto sections = sectionsOfSelf();
    int plts = 0;
    for (const char* plt : {".plt", ".plt.sec"}) {
        auto it = sections.find(plt);
        if (it == sections.end() || it->second.second < 16) continue;
        ++plts;
        EXPECT_EQ(elf->functionAt(it->second.first + 8), "[plt]") << plt;
    }
    EXPECT_GT(plts, 0) << "this executable has no PLT section";
    if (auto init = sections.find(".init"); init != sections.end()) {
        EXPECT_EQ(elf->functionAt(init->second.first), "_init");
    }
}

// Loads tests/clients' shared library into this process: the file offset of sampling_lib_spin
// in it (0, with a test failure, when it cannot) and the module path the mappings give.
uint64_t spinOffset(void*& handle, std::string* module = nullptr) {
    handle = dlopen(libPath().c_str(), RTLD_NOW);
    EXPECT_TRUE(handle) << dlerror();
    void* spin = handle ? dlsym(handle, "sampling_lib_spin") : nullptr;
    EXPECT_TRUE(spin);
    if (!spin) return 0;
    ModuleMaps maps;
    loadSelfMaps(maps, 7);
    const ModuleMaps::Location at = maps.lookup(7, reinterpret_cast<uint64_t>(spin) + 1);
    EXPECT_NE(at.module, ModuleMaps::kNoModule);
    if (at.module == ModuleMaps::kNoModule) return 0;
    if (module) *module = maps.modules()[at.module];
    return at.offset;
}

TEST(ElfSymbols, SharedLibraryFullAndStripped) {
    void* h = nullptr;
    std::string module;
    const uint64_t offset = spinOffset(h, &module);
    ASSERT_NE(offset, 0u);
    EXPECT_EQ(fs::path(module).filename(), "libsampling_lib.so");
    auto full = ElfSymbols::load(libPath());
    ASSERT_TRUE(full) << full.error();
    EXPECT_EQ(full->functionAt(offset), "sampling_lib_spin");
    EXPECT_TRUE(full->fromDebugFile());  // .symtab

    // A stripped copy has only .dynsym: exported functions still resolve.
    char tmpl[] = "/tmp/sightline-elf-test-XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    const std::string stripped = std::string(tmpl) + "/libstripped.so";
    const std::string cmd = "strip --strip-all -o '" + stripped + "' '" + libPath() + "'";
    if (std::system(cmd.c_str()) != 0) {
        fs::remove_all(tmpl);
        GTEST_SKIP() << "strip is not available";
    }
    auto dyn = ElfSymbols::load(stripped);
    ASSERT_TRUE(dyn) << dyn.error();
    EXPECT_FALSE(dyn->fromDebugFile());
    EXPECT_EQ(dyn->functionAt(offset), "sampling_lib_spin");
    fs::remove_all(tmpl);
    dlclose(h);
}

// A module read while the program runs may be rewritten in place afterwards (a build relinking
// a tool it ran): the table keeps the names of the version it read, and reading it faults on
// nothing (a mapped file cut short raised SIGBUS in the launcher).
TEST(ElfSymbols, AModuleRewrittenInPlaceAfterTheParseKeepsItsNames) {
    void* h = nullptr;
    const uint64_t offset = spinOffset(h);
    ASSERT_NE(offset, 0u);
    char tmpl[] = "/tmp/sightline-elf-rewrite-XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    const std::string copy = std::string(tmpl) + "/libcopy.so";
    fs::copy_file(libPath(), copy);
    auto elf = ElfSymbols::load(copy);
    ASSERT_TRUE(elf) << elf.error();
    capture::FrameSymbolizer symbolizer;
    symbolizer.preload(copy);
    // Cut to nothing, then other bytes over the same inode.
    fs::resize_file(copy, 0);
    {
        std::ofstream(copy, std::ios::binary | std::ios::in | std::ios::out)
            << std::string(4096, 'x');
    }
    EXPECT_EQ(elf->functionAt(offset), "sampling_lib_spin");
    EXPECT_EQ(symbolizer.function(copy, offset), "sampling_lib_spin");
    fs::remove_all(tmpl);
    dlclose(h);
}

TEST(ElfSymbols, BadFilesAreErrorsNamingTheFile) {
    auto missing = ElfSymbols::load("/nonexistent/libx.so");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("/nonexistent/libx.so"), std::string::npos);
    char tmpl[] = "/tmp/sightline-elf-test-XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    const std::string text = std::string(tmpl) + "/text";
    std::ofstream(text) << "not an ELF file at all";
    auto notElf = ElfSymbols::load(text);
    ASSERT_FALSE(notElf);
    EXPECT_NE(notElf.error().find("not a 64-bit little-endian ELF file"), std::string::npos);
    // The first 200 bytes of a real library: headers point past the end.
    const std::string cut = std::string(tmpl) + "/cut.so";
    {
        std::ifstream in(libPath(), std::ios::binary);
        std::string head(200, '\0');
        in.read(head.data(), 200);
        std::ofstream(cut, std::ios::binary) << head;
    }
    auto truncated = ElfSymbols::load(cut);
    ASSERT_FALSE(truncated);
    EXPECT_NE(truncated.error().find("past the end of the file"), std::string::npos)
        << truncated.error();
    fs::remove_all(tmpl);
}

TEST(ElfSymbols, CorruptCopiesLoadOrFailCleanly) {
    // Random bytes in the headers and the tables (where the section headers live), and
    // truncations: every load either fails with a message or gives lookups that stay in bounds.
    std::ifstream in(libPath(), std::ios::binary);
    const std::string orig((std::istreambuf_iterator<char>(in)), {});
    ASSERT_GT(orig.size(), 8192u);
    char tmpl[] = "/tmp/sightline-elf-test-XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    const std::string path = std::string(tmpl) + "/fuzz.so";
    std::mt19937_64 rng(12345);
    int failed = 0;
    for (int round = 0; round < 300; ++round) {
        std::string d = orig;
        for (int k = 0; k < 1 + static_cast<int>(rng() % 8); ++k) {
            const size_t pos = rng() % 2 ? rng() % 128 : d.size() - 1 - rng() % 4096;
            d[pos] = static_cast<char>(rng());
        }
        if (rng() % 10 == 0) d.resize(rng() % d.size() + 1);
        std::ofstream(path, std::ios::binary | std::ios::trunc) << d;
        auto e = ElfSymbols::load(path);
        if (!e) {
            ++failed;
            EXPECT_NE(e.error().find(path), std::string::npos) << e.error();
            continue;
        }
        for (int q = 0; q < 100; ++q) (void)e->functionAt(rng() % (d.size() + 64));
    }
    EXPECT_GT(failed, 0);  // the corruption does reach the checks
    fs::remove_all(tmpl);
}

TEST(FrameSymbolizer, PseudoModulesMissingFilesAndTheCache) {
    ModuleMaps maps;
    loadSelfMaps(maps, 1);
    const auto at = maps.lookup(1, reinterpret_cast<uint64_t>(&symbolizerMarker) + 4);
    ASSERT_NE(at.module, ModuleMaps::kNoModule);
    capture::FrameSymbolizer s;
    const std::string exe = maps.modules()[at.module];
    EXPECT_EQ(s.function(exe, at.offset), "sl::test::symbolizerMarker(int)");
    EXPECT_EQ(s.function(exe, at.offset + 1), "sl::test::symbolizerMarker(int)");
    for (const char* pseudo :
         {"//anon", "[vdso]", "/memfd:jit (deleted)", "/tmp/gone.so (deleted)"})
        EXPECT_EQ(s.function(pseudo, 0x10), "") << pseudo;
    EXPECT_EQ(s.function("/nonexistent/libgone.so", 0x10), "");
    EXPECT_EQ(s.function("/nonexistent/libgone.so", 0x20), "");
    // Pseudo modules are not errors; a missing file is, once, with its path.
    ASSERT_EQ(s.unreadable().size(), 1u);
    EXPECT_NE(s.unreadable().begin()->second.find("/nonexistent/libgone.so"), std::string::npos);
    EXPECT_EQ(s.modulesLoaded(), 6u);  // one entry per module, parsed or not

    // "[vdso]" is named from the profiler's own vDSO image: its clock_gettime is found.
    std::set<std::string> vdsoNames;
    for (uint64_t off = 0; off < 16384; ++off)
        if (auto n = s.function("[vdso]", off); !n.empty()) vdsoNames.emplace(n);
    EXPECT_TRUE(vdsoNames.count("clock_gettime") || vdsoNames.count("__vdso_clock_gettime"))
        << vdsoNames.size() << " names";
    EXPECT_EQ(s.modulesLoaded(), 6u);
}

// Modules read ahead on the prefetch thread: every one wanted is in the symbolizer take()
// hands over (read, or remembered as unreadable) before any frame is named, and naming a frame
// there reads nothing more.
TEST(SymbolPrefetch, ModulesWantedAreReadBeforeTheFramesAreNamed) {
    ModuleMaps maps;
    loadSelfMaps(maps, 1);
    const auto at = maps.lookup(1, reinterpret_cast<uint64_t>(&symbolizerMarker) + 4);
    ASSERT_NE(at.module, ModuleMaps::kNoModule);
    const std::string exe = maps.modules()[at.module];
    capture::SymbolPrefetch prefetch;
    for (const std::string& m : {exe, std::string("/nonexistent/libgone.so"), std::string("//anon"), exe})
        prefetch.want(m);
    std::unique_ptr<capture::FrameSymbolizer> s = prefetch.take();
    ASSERT_TRUE(s);
    EXPECT_EQ(s->modulesLoaded(), 3u);
    ASSERT_EQ(s->unreadable().size(), 1u);
    EXPECT_EQ(s->function(exe, at.offset), "sl::test::symbolizerMarker(int)");
    EXPECT_EQ(s->modulesLoaded(), 3u);
    // Taken once: later wants are not read, a second take() is an empty symbolizer.
    prefetch.want(libPath());
    auto again = prefetch.take();
    ASSERT_TRUE(again);
    EXPECT_EQ(again->modulesLoaded(), 0u);
    // Dropped without take(): the thread ends with the object.
    capture::SymbolPrefetch unused;
    unused.want(exe);
}

// The resolver reports each module its frames land in once, never the kernel or unmapped
// addresses, and names frames through the symbolizer it is given.
TEST(SampleResolver, NewModulesOnceAndAGivenSymbolizer) {
    capture::SampleResolver r;
    ModuleMaps& maps = r.maps();
    loadSelfMaps(maps, 7);
    const uint64_t marker = reinterpret_cast<uint64_t>(&symbolizerMarker) + 4;
    const uint64_t kernel = 0xffffffff81000000ULL;
    const uint64_t st1[] = {kernel, marker, marker + 1};
    const uint64_t st2[] = {0x10, marker};  // 0x10: in no mapping
    r.stackOf(7, st1, 3);
    r.stackOf(7, st2, 2);
    const std::vector<uint32_t> modules = r.takeNewModules();
    ASSERT_EQ(modules.size(), 1u);
    EXPECT_EQ(r.modules()[modules[0]], selfExe());
    EXPECT_TRUE(r.takeNewModules().empty());
    capture::FrameSymbolizer given;
    given.preload(r.modules()[modules[0]]);
    r.symbolize(nullptr, &given);
    EXPECT_EQ(given.modulesLoaded(), 1u);
    size_t named = 0;
    for (const auto& f : r.frames())
        if (f.function != 0) {
            ++named;
            EXPECT_EQ(r.functions()[f.function], "sl::test::symbolizerMarker(int)");
        }
    EXPECT_EQ(named, 3u);  // the marker as a leaf, and as a return address in both stacks
}

TEST(KernelSymbols, KallsymsTextAndHiddenAddresses) {
    char tmpl[] = "/tmp/sightline-elf-test-XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    const std::string visible = std::string(tmpl) + "/kallsyms";
    std::ofstream(visible) << "ffffffff81000200 T big_fn\t[somemod]\n"
                              "ffffffff81000000 T _stext\n"
                              "ffffffff81000100 t helper_fn\n"
                              "ffffffff81000180 d some_data\n"
                              "garbage line\n";
    auto k = capture::KernelSymbols::load(visible);
    EXPECT_EQ(k.size(), 3u);  // text symbols only, in address order
    EXPECT_EQ(k.functionAt(0xffffffff81000150), "helper_fn");
    EXPECT_EQ(k.functionAt(0xffffffff81000100), "helper_fn");
    EXPECT_EQ(k.functionAt(0xffffffff81000250), "big_fn");
    EXPECT_EQ(k.functionAt(0xffffffff80ffffff), "");
    EXPECT_EQ(k.functionAt(0xffffffff91000000), "");  // far past the last symbol
    const std::string hidden = std::string(tmpl) + "/hidden";
    std::ofstream(hidden) << "0000000000000000 T _stext\n0000000000000000 t helper_fn\n";
    EXPECT_EQ(capture::KernelSymbols::load(hidden).size(), 0u);
    EXPECT_EQ(capture::KernelSymbols::load(std::string(tmpl) + "/missing").size(), 0u);
    EXPECT_TRUE(capture::KernelSymbols::isKernelAddress(0xffffffff81000000));
    EXPECT_FALSE(capture::KernelSymbols::isKernelAddress(0x7fffffffe000));

    // Through the resolver: a kernel leaf is named, a user frame below it is not a kernel one.
    capture::SampleResolver r;
    const uint64_t stack[] = {0xffffffff81000150, 0xffffffff81000150};
    const uint32_t st = r.stackOf(1, stack, 2);
    EXPECT_TRUE(r.hasKernelFrames());
    r.symbolize(&k);
    ASSERT_EQ(r.stackEnd(st) - r.stackBegin(st), 2);
    const auto& leaf = r.frames()[r.stackBegin(st)[0]];
    const auto& below = r.frames()[r.stackBegin(st)[1]];
    EXPECT_EQ(leaf.module, capture::SampleResolver::kKernel);
    EXPECT_EQ(r.functions()[leaf.function], "helper_fn");
    EXPECT_EQ(below.module, ModuleMaps::kNoModule);  // unmapped user address, unresolved
    EXPECT_EQ(r.unresolvedIn(st), 1u);
    fs::remove_all(tmpl);
}

// The per-boot cache of the kernel's symbols: used only for the key it was written for, never
// when damaged, never written for hidden addresses.
TEST(KernelSymbols, CacheServesOnlyItsKeyAndSurvivesDamage) {
    char tmpl[] = "/tmp/sightline-ksym-cache-XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    const std::string dir = tmpl, kallsyms = dir + "/kallsyms", cache = dir + "/sub/kallsyms.bin";
    std::ofstream(kallsyms) << "ffffffff81000000 T _stext\nffffffff81000100 t helper_fn\n";
    bool cached = true;
    auto first = capture::KernelSymbols::loadCached(kallsyms, cache, 1, &cached);
    EXPECT_FALSE(cached);
    EXPECT_EQ(first.functionAt(0xffffffff81000150), "helper_fn");
    ASSERT_TRUE(std::filesystem::exists(cache));  // the directory was made
    // The kernel's table changes; the same key still reads the cache (what it stands for: the
    // same boot and modules), another key reads the kernel's table and replaces the cache.
    std::ofstream(kallsyms) << "ffffffff81000000 T _stext\nffffffff81000100 t renamed_fn\n";
    auto again = capture::KernelSymbols::loadCached(kallsyms, cache, 1, &cached);
    EXPECT_TRUE(cached);
    EXPECT_EQ(again.functionAt(0xffffffff81000150), "helper_fn");
    EXPECT_EQ(again.size(), 2u);
    auto rebooted = capture::KernelSymbols::loadCached(kallsyms, cache, 2, &cached);
    EXPECT_FALSE(cached);
    EXPECT_EQ(rebooted.functionAt(0xffffffff81000150), "renamed_fn");
    // A table read from the cache maps the file: replacing the file (always by a rename) leaves
    // the table it already gave as it was.
    EXPECT_EQ(again.functionAt(0xffffffff81000150), "helper_fn");
    EXPECT_TRUE(capture::KernelSymbols::loadCached(kallsyms, cache, 2, &cached).size() == 2 && cached);
    // Damaged: cut short, or a name pointing outside the names. Read again, rewritten.
    std::filesystem::resize_file(cache, std::filesystem::file_size(cache) - 3);
    EXPECT_EQ(capture::KernelSymbols::loadCached(kallsyms, cache, 2, &cached).functionAt(0xffffffff81000150),
              "renamed_fn");
    EXPECT_FALSE(cached);
    {
        std::fstream f(cache, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(32 + 16 + 8);  // the second symbol's name offset
        const uint32_t far = 1u << 20;
        f.write(reinterpret_cast<const char*>(&far), 4);
    }
    EXPECT_EQ(capture::KernelSymbols::loadCached(kallsyms, cache, 2, &cached).functionAt(0xffffffff81000150),
              "renamed_fn");
    EXPECT_FALSE(cached);
    EXPECT_TRUE(capture::KernelSymbols::loadCached(kallsyms, cache, 2, &cached).size() == 2 && cached);
    // Hidden addresses: nothing to keep, no file.
    const std::string hidden = dir + "/hidden", hiddenCache = dir + "/hidden.bin";
    std::ofstream(hidden) << "0000000000000000 T _stext\n";
    EXPECT_EQ(capture::KernelSymbols::loadCached(hidden, hiddenCache, 3, &cached).size(), 0u);
    EXPECT_FALSE(std::filesystem::exists(hiddenCache));
    // An unwritable cache place costs nothing but the cache.
    EXPECT_EQ(capture::KernelSymbols::loadCached(kallsyms, "/proc/no/such/kallsyms.bin", 4, &cached).size(), 2u);
    // This machine's own table, through the environment's cache directory: the same symbols.
    ::setenv("SIGHTLINE_CACHE_DIR", (dir + "/env").c_str(), 1);
    EXPECT_EQ(capture::KernelSymbols::defaultCacheFile().rfind(dir + "/env/kallsyms-", 0), 0u);
    // One file per machine (a home directory on NFS is shared by many).
    char host[256] = {};
    ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
    EXPECT_NE(capture::KernelSymbols::defaultCacheFile().find(std::string("-") + host + ".bin"),
              std::string::npos);
    const auto direct = capture::KernelSymbols::load();
    const auto viaCache = capture::KernelSymbols::loadForThisBoot();
    const auto second = capture::KernelSymbols::loadForThisBoot();
    ::unsetenv("SIGHTLINE_CACHE_DIR");
    EXPECT_EQ(viaCache.size(), direct.size());
    EXPECT_EQ(second.size(), direct.size());
    EXPECT_NE(capture::KernelSymbols::currentKey(), 0u);
    // The key: the boot and each module's name and address, not its use count.
    const std::string proc = dir + "/proc";
    std::filesystem::create_directories(proc + "/sys/kernel/random");
    std::ofstream(proc + "/sys/kernel/random/boot_id") << "3f1c0e4e-boot-one\n";
    std::ofstream(proc + "/modules") << "nf_tables 376832 0 - Live 0xffffffffc0a00000\n";
    const uint64_t key = capture::KernelSymbols::currentKey(proc);
    std::ofstream(proc + "/modules") << "nf_tables 376832 3 - Live 0xffffffffc0a00000\n";
    EXPECT_EQ(capture::KernelSymbols::currentKey(proc), key);
    std::ofstream(proc + "/modules") << "nf_tables 376832 3 - Live 0xffffffffc0b00000\n";
    EXPECT_NE(capture::KernelSymbols::currentKey(proc), key);
    std::ofstream(proc + "/modules") << "nf_tables 376832 0 - Live 0xffffffffc0a00000\n";
    std::ofstream(proc + "/sys/kernel/random/boot_id") << "3f1c0e4e-boot-two\n";
    EXPECT_NE(capture::KernelSymbols::currentKey(proc), key);
    std::filesystem::remove_all(dir);
}

TEST(ModuleMaps, LookupOverlapForkExec) {
    ModuleMaps m;
    m.map(10, 0x1000, 0x2000, 0x0, "/bin/a");        // [0x1000, 0x3000) offsets 0..
    m.map(10, 0x5000, 0x1000, 0x4000, "/lib/b.so");  // [0x5000, 0x6000) offsets 0x4000..
    auto l = m.lookup(10, 0x1800);
    EXPECT_EQ(m.modules()[l.module], "/bin/a");
    EXPECT_EQ(l.offset, 0x800u);
    l = m.lookup(10, 0x5010);
    EXPECT_EQ(m.modules()[l.module], "/lib/b.so");
    EXPECT_EQ(l.offset, 0x4010u);
    EXPECT_EQ(m.lookup(10, 0x3000).module, ModuleMaps::kNoModule);  // end is exclusive
    EXPECT_EQ(m.lookup(10, 0xfff).module, ModuleMaps::kNoModule);
    EXPECT_EQ(m.lookup(11, 0x1800).module, ModuleMaps::kNoModule);  // another process

    // A new mapping over the middle of /bin/a splits it; the tail keeps its file offsets.
    m.map(10, 0x1800, 0x400, 0x100, "/lib/c.so");
    l = m.lookup(10, 0x1900);
    EXPECT_EQ(m.modules()[l.module], "/lib/c.so");
    EXPECT_EQ(l.offset, 0x200u);
    l = m.lookup(10, 0x1c00);
    EXPECT_EQ(m.modules()[l.module], "/bin/a");
    EXPECT_EQ(l.offset, 0xc00u);
    l = m.lookup(10, 0x17ff);
    EXPECT_EQ(m.modules()[l.module], "/bin/a");
    EXPECT_EQ(l.offset, 0x7ffu);

    m.fork(10, 20);  // the child has the parent's mappings
    EXPECT_EQ(m.modules()[m.lookup(20, 0x5010).module], "/lib/b.so");
    const uint64_t generation = m.generation();
    m.fork(20, 20);  // a new thread changes nothing
    EXPECT_EQ(m.modules()[m.lookup(20, 0x5010).module], "/lib/b.so");
    EXPECT_EQ(m.generation(), generation);
    m.exec(20);                             // exec: the old image is gone, the parent keeps its own
    EXPECT_NE(m.generation(), generation);  // cached lookups are stale now
    EXPECT_EQ(m.lookup(20, 0x5010).module, ModuleMaps::kNoModule);
    EXPECT_EQ(m.modules()[m.lookup(10, 0x5010).module], "/lib/b.so");
    EXPECT_EQ(m.modules().size(), 3u);  // paths are interned
}

TEST(CpuSampler, ResolveAndAddToOnSyntheticRecords) {
    // The real file offset of a function of this executable, then synthetic mappings/samples.
    ModuleMaps self;
    loadSelfMaps(self, 1);
    const auto at = self.lookup(1, reinterpret_cast<uint64_t>(&symbolizerMarker) + 8);
    ASSERT_NE(at.module, ModuleMaps::kNoModule);
    const uint64_t base = 0x400000000;
    capture::CpuSampler s;
    // A sample before the mapping exists (unresolved), the mapping, then samples in and out of
    // the merge window; one in the kernel; the same stack twice.
    const uint64_t ip = base + at.offset, caller = base + at.offset + 1;
    const uint64_t kernel = UINT64_MAX;
    const uint64_t st1[] = {ip, caller};
    const uint64_t st2[] = {kernel, ip};
    const uint64_t stAnon[] = {0x7000};
    s.addSample(5, 42, 43, 1, st1, 2);
    s.addMapping(10, 42, base, uint64_t{1} << 30, 0, self.modules()[at.module]);
    s.addSample(20, 42, 43, 0, st1, 2);
    s.addSample(30, 42, 44, 1, st1, 2);
    s.addSample(40, 42, 43, 1, st2, 2);
    s.addSample(50, 42, 43, 1, stAnon, 1);
    s.addSample(1000, 42, 43, 1, st1, 2);
    s.resolve();
    EXPECT_EQ(s.stats().samples, 6u);
    ReportBuilder b;
    s.addTo(b, 5, 50);
    auto r = b.finish();
    EXPECT_EQ(r->eventCount(), 5u);
    std::map<int64_t, std::vector<std::string>> byTime;
    for (const Track& t : r->tracks) {
        ASSERT_EQ(t.key.kind, EventKind::CpuSample);
        for (size_t i = 0; i < t.size(); ++i) {
            auto& v = byTime[t.start[i]];
            for (uint32_t f :
                 r->callStacks.at(static_cast<uint32_t>(t.intAt(cols::CpuSample::Stack, i))).frames)
                v.push_back(r->frameText(f));
        }
    }
    const std::string exe = fs::path(self.modules()[at.module]).filename().string();
    const std::string fn = "sl::test::symbolizerMarker(int) (" + exe + ")";
    ASSERT_EQ(byTime.size(), 5u);
    EXPECT_EQ(byTime[5].size(), 2u);
    EXPECT_EQ(byTime[5][0].rfind("[unknown]+0x", 0), 0u) << byTime[5][0];
    EXPECT_EQ(byTime[20], (std::vector<std::string>{fn, fn}));
    EXPECT_EQ(byTime[30], (std::vector<std::string>{fn, fn}));
    EXPECT_EQ(byTime[40], (std::vector<std::string>{"[kernel] ([kernel])", fn}));
    EXPECT_EQ(byTime[50], (std::vector<std::string>{"[unknown]+0x7000"}));
    // Identical stacks are stored once; 2 + 1 + 1 unresolved frames are counted.
    EXPECT_EQ(r->callStacks.size(), 4u);
    EXPECT_EQ(r->diagnosticCount("sampling.frames_unresolved"), 3);
    EXPECT_EQ(r->diagnosticCount("sampling.samples_lost"), 0);
}

TEST(ProfileOptionsParse, SamplingOptions) {
    capture::ProfileOptions o;
    EXPECT_TRUE(o.cpuSampling);  // nsys defaults: process-tree, 1000 Hz; backtraces on
    EXPECT_EQ(o.samplingFrequency, 1000);
    EXPECT_TRUE(o.backtraces);
    EXPECT_TRUE(capture::parseSample("none", o));
    EXPECT_FALSE(o.cpuSampling);
    EXPECT_TRUE(capture::parseSample("process-tree", o));
    EXPECT_TRUE(o.cpuSampling);
    // system-wide samples the traced tree (the definition says how it differs from nsys).
    EXPECT_TRUE(capture::parseSample("system-wide", o));
    EXPECT_TRUE(o.cpuSampling);
    EXPECT_FALSE(capture::parseSample("", o));
    EXPECT_TRUE(capture::parseSamplingFrequency("8000", o));
    EXPECT_EQ(o.samplingFrequency, 8000);
    EXPECT_TRUE(capture::parseSamplingFrequency("100", o));
    EXPECT_EQ(o.samplingFrequency, 100);
    for (const char* bad : {"99", "8001", "1k", "", "-5"})
        EXPECT_EQ(capture::parseSamplingFrequency(bad, o).error(),
                  std::string("--sampling-frequency: '") + bad +
                      "' is not a valid value (expected a whole number from 100 to 8000 HZ)");
    EXPECT_EQ(o.samplingFrequency, 100);  // unchanged by the failures
    EXPECT_TRUE(capture::parseBacktrace("none", o));
    EXPECT_FALSE(o.backtraces);
    EXPECT_TRUE(capture::parseBacktrace("fp", o));
    EXPECT_TRUE(o.backtraces);
    EXPECT_TRUE(capture::parseBacktrace("auto", o));
    EXPECT_TRUE(o.backtraces);
    // lbr: accepted (the parser warns), frame pointers are walked; dwarf: DWARF unwinding.
    EXPECT_TRUE(capture::parseBacktrace("lbr", o));
    EXPECT_TRUE(o.backtraces);
    EXPECT_TRUE(capture::parseBacktrace("dwarf", o));
    EXPECT_TRUE(o.backtraces);
    EXPECT_TRUE(o.dwarfBacktraces);
    EXPECT_TRUE(capture::parseBacktrace("fp", o));
    EXPECT_FALSE(o.dwarfBacktraces);
    EXPECT_EQ(capture::parseBacktrace("frame", o).error(),
              "--backtrace: 'frame' is not a valid value (expected auto, fp, lbr, dwarf or none)");
}

TEST(CpuSampler, RefusalIsOneClearLine) {
    // A pid that cannot exist: perf_event_open fails, start() says why and nothing is left open.
    capture::CpuSampler s;
    const std::string why = s.start(0x3fffffff, 1000, capture::CpuSampler::Backtrace::FramePointers);
    EXPECT_EQ(why.rfind("CPU sampling is off: perf_event_open on CPU 0: No such process", 0), 0u)
        << why;
    EXPECT_EQ(why.find('\n'), std::string::npos);
    s.stop();  // harmless without a reader thread
    EXPECT_EQ(s.stats().samples, 0u);
}

}  // namespace
}  // namespace sl::test
