#pragma once
// nsys's NVTX_EVENTS.eventType values (its ENUM_NSYS_EVENT_TYPE ids), read by the nsys import
// and written by the SQLite export: one definition for both.
#include <cstdint>

namespace sl::nsys {

constexpr int64_t kNvtxCategory = 33;       // a category's name: `category`, `text`, `domainId`
constexpr int64_t kNvtxMark = 34;
constexpr int64_t kNvtxThreadName = 39;
constexpr int64_t kNvtxPushPop = 59;
constexpr int64_t kNvtxStartEnd = 60;
constexpr int64_t kNvtxDomainCreate = 75;   // a domain's name: `text`, `domainId`
constexpr int64_t kNvtxDomainDestroy = 76;

}  // namespace sl::nsys
