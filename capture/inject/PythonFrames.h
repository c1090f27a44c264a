#pragma once
// Python frames (function, source file, line) shared by the Python sampler (the hook's
// sightline_pysample) and the backtraces taken at recorded calls (PythonBacktrace.h): each
// distinct frame is defined once per stream with a PythonFrame record and named by its id (from
// 1) in PythonSample and PythonBacktrace records. A forked child (a new stream) defines the
// frames it inherited again before it names one. Append-only and lock-free: a child forked
// mid-definition cannot deadlock.
#include <cstdint>
#include <string_view>

namespace sl::inject::pyframes {

// Defines a frame; returns its id, or 0 when the table is full (the caller leaves it out).
// Call inside a ProcessWriter::ToolScope with the writer active.
uint32_t define(std::string_view function, std::string_view file, int64_t line);
// Before naming frames in a record: a stream that lacks the earlier definitions gets them.
void defineAgainIfNewStream();
// A whole stack of frame ids (leaf first), defined once per stream with a PythonStack record
// and named by its id (from 1): a backtrace taken again at the same place is one small record.
// 0 when it cannot be interned now (the table is full, or another thread is defining it): the
// caller then names the frames themselves.
uint32_t stackOf(const uint32_t* frames, uint32_t count);

}  // namespace sl::inject::pyframes
