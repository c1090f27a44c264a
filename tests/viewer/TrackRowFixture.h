#pragma once
// A GL-free fixture shared by the row tests of the viewer fixtures that span 10 ms from
// 1'000'000'000 ns (MpiRowTest.cpp, OpenMpRowTest.cpp): the row tree and palette of the report,
// a row drawn 10 us per pixel over 1000 pixels, the color drawn at a pixel, and the tooltip
// fields of the event hit there.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "model/analysis/EventQueryDetails.h"
#include "viewer/timeline/DrawList.h"
#include "viewer/timeline/Palette.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TrackRow.h"

namespace sl::test {

class TrackRowFixture : public ::testing::Test {
protected:
    explicit TrackRowFixture(std::shared_ptr<Report> r) : report(std::move(r)) {}

    std::shared_ptr<Report> report;
    std::unique_ptr<viewer::Row> root = viewer::buildRowTree(*report);
    viewer::Palette palette{*report};

    viewer::RowContext context(const viewer::TrackRow& row) {
        constexpr int64_t kOrigin = 1'000'000'000;
        viewer::RowContext c;
        c.t0 = kOrigin;
        c.t1 = kOrigin + 10'000'000;
        c.nsPerPixel = 10'000;  // 10 us per pixel: 1000 pixels
        c.x = 0;
        c.width = 1000;
        c.y = 0;
        c.height = row.height();
        c.palette = &palette;
        return c;
    }
    // A y inside lane `lane` of a row.
    static float laneY(uint32_t lane) {
        return viewer::TrackRow::kPad + static_cast<float>(lane) * viewer::TrackRow::kLaneHeight + 4;
    }
    // The color drawn at pixel column x of a row (of one lane where given; 0 when none), from
    // its boxes and strips.
    uint32_t pixel(const viewer::TrackRow& row, int x, std::optional<uint32_t> lane = std::nullopt) {
        viewer::DrawList out;
        row.build(context(row), out);
        uint32_t argb = 0;
        for (const viewer::DrawBox& b : out.boxes) {
            if (!(b.x <= static_cast<float>(x) && static_cast<float>(x) < b.x + b.w)) continue;
            if (lane && !(b.y <= laneY(*lane) && laneY(*lane) < b.y + b.h)) continue;
            argb = b.argb;
        }
        // Lanes are drawn as strips of pixel columns where they are not boxes.
        const float y = lane ? laneY(*lane) : -1;
        for (const viewer::DrawStrip& st : out.strips)
            if (lane ? (st.y <= y && y < st.y + st.h) : true)
                if (const uint32_t c = out.stripColorAt(static_cast<float>(x) + 0.5f, st.y); c != 0)
                    argb = c;
        return argb;
    }
    // The tooltip fields of the event at pixel column x in `lane` (and its name in *name): the
    // tooltip form of the details formatter for the event hit there, its times left out.
    std::map<std::string, std::string> fields(const viewer::TrackRow& row, int x, uint32_t lane, std::string* name) {
        const auto hit = row.hitTest(context(row), static_cast<float>(x), laneY(lane));
        EXPECT_TRUE(hit && hit->track);
        if (!hit || !hit->track) return {};
        std::map<std::string, std::string> out;
        for (const auto& [field, value] :
             analysis::eventDetails(*report, *hit->track, hit->index, analysis::DetailForm::Tooltip)) {
            if (field == "Name" && name) *name = value;
            if (field != "Name" && field != "Start" && field != "Duration" && field != "Time") out[field] = value;
        }
        return out;
    }
};

}  // namespace sl::test
