#pragma once
// Version of the .rep format (model/FORMAT.md, "Compatibility").
//  - kFormatVersion: what this build writes.
//  - A file states min_reader_version: the oldest reader that can read it. A reader opens a
//    file when min_reader_version <= kFormatVersion; additions that old readers can ignore
//    (new tables, appended columns, new track kinds) keep min_reader_version unchanged.
//  - Version 2 (issue #23): chunk encoding 2 (starts as gaps after the previous end, unsigned
//    durations) and page sizes chosen by the report's size. Version 1 files still open.
namespace sl {
constexpr int kFormatVersion = 2;
constexpr int kMinReaderVersion = 2;
constexpr const char* kReportMagic = "sightline-report";
}  // namespace sl
