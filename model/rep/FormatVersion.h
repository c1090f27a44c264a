#pragma once
// Version of the .rep format (model/FORMAT.md, "Compatibility").
//  - kFormatVersion: what this build writes.
//  - A file states min_reader_version: the oldest reader that can read it. A reader opens a
//    file when min_reader_version <= kFormatVersion; additions that old readers can ignore
//    (new tables, appended columns, new track kinds) keep min_reader_version unchanged.
namespace sl {
constexpr int kFormatVersion = 1;
constexpr int kMinReaderVersion = 1;
constexpr const char* kReportMagic = "sightline-report";
}  // namespace sl
