#pragma once
// Reads a whole file into memory, inflating it when it is gzip-compressed (several gzip members
// are concatenated as gzip(1) does). The buffer keeps `padding` spare bytes after the data so a
// SIMD JSON parser can read past the end without a copy. Large inputs: one allocation, no
// zero-filling; a large plain file whose last page has room for the padding is mapped instead
// of copied (the kernel zero-fills the rest of that page).
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/core/Result.h"

namespace sl::import {

// The first buffer for inflating `compressedBytes` of gzip whose last member's trailer says
// `trailerSize` (its size mod 2^32): the trailer when deflate could produce it (at most 1032
// bytes per compressed byte), else 4x the input. A damaged or hostile trailer never sizes it.
size_t firstInflateBuffer(size_t compressedBytes, uint32_t trailerSize);

struct FreeDeleter {
    void operator()(char* p) const { std::free(p); }
};

struct LoadedFile {
    std::unique_ptr<char, FreeDeleter> buffer;  // owned data, or null when mapped
    std::shared_ptr<const char> mapping;        // a read-only mmap of the file
    size_t size = 0;                            // bytes of data
    size_t capacity = 0;                        // bytes readable from data() (>= size + padding)
    bool wasGzip = false;
    size_t compressedBytes = 0;
    const char* data() const { return mapping ? mapping.get() : buffer.get(); }
    std::string_view view() const { return {data(), size}; }
};

// `progress` gets the fraction of the input read; returning false cancels.
Result<LoadedFile> loadMaybeGzip(const std::string& path, size_t padding,
                                 const std::function<bool(double)>& progress = {});

// A plain (not gzip) file mapped without reading it and without padding: the
// pages come in as a chunked parse reaches them and releaseMapped() gives them back, so memory
// stays at the part in use. nullopt for gzip or unreadable files.
std::optional<LoadedFile> mapPlainFile(const std::string& path);
// Drops the pages from the one holding `begin` to the last whole one before `end` of a mapped
// file from memory (a no-op for a buffer); they are read again from the file if touched.
void releaseMapped(const LoadedFile& file, size_t begin, size_t end);

}  // namespace sl::import
