// Light and dark (issue #21 item 5): View > Theme switches the widgets' palette and the
// timeline's own colors (its background, headers and text), the choice is saved per user and
// applied by the next window, and "Follow the Desktop" reads the desktop's scheme. Real widgets
// under Xvfb (whose desktop palette is light), the H200 report of tests/data/gpu.
#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QTest>

#include "tests/viewer/WaitUntil.h"
#include "viewer/timeline/TimelineTheme.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"
#include "viewer/window/ThemeSetting.h"

using namespace sl::viewer;

namespace {

class ThemeTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_org = QCoreApplication::organizationName();
        QCoreApplication::setOrganizationName(QStringLiteral("SightlineThemeTest"));
        QSettings().clear();
    }
    void TearDown() override {
        applyTheme(Theme::Light);
        QSettings().clear();
        QCoreApplication::setOrganizationName(m_org);
    }
    QString m_org;
};

ReportTab* openFixture(MainWindow& w) {
    w.resize(1400, 900);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return nullptr;
    ReportTab* tab = w.openReport(QStringLiteral(SIGHTLINE_TEST_DATA "/gpu/cuda_workload_h200.rep"));
    if (!sl::test::waitUntil([tab] { return tab->state() != ReportTab::State::Loading; }, 30000))
        return nullptr;
    return tab->state() == ReportTab::State::Ready ? tab : nullptr;
}

// The lightness of the timeline's own pixels: the ruler's band above the rows, right of the
// row headers, where no event is drawn.
int rulerLightness(TimelineWidget& t) {
    const QImage img = t.renderImage();
    if (img.isNull()) return -1;
    return img.pixelColor(img.width() - 20, 4).lightness();
}

QAction* themeAction(MainWindow& w, const QString& text) {
    for (QAction* top : w.menuBar()->actions()) {
        if (!top->menu()) continue;
        for (QAction* a : top->menu()->actions())
            if (a->menu() && a->text().remove('&') == QLatin1String("Theme"))
                for (QAction* t : a->menu()->actions())
                    if (t->text().remove('&') == text) return t;
    }
    return nullptr;
}

TEST_F(ThemeTest, TheMenuSwitchesWidgetsAndTimelineAndTheChoiceIsSaved) {
    ASSERT_FALSE(desktopIsDark()) << "Xvfb's desktop palette is light";
    MainWindow w;
    ReportTab* tab = openFixture(w);
    ASSERT_NE(tab, nullptr);
    const int lightRuler = rulerLightness(*tab->timeline());
    EXPECT_GT(lightRuler, 200);
    EXPECT_GT(QApplication::palette().color(QPalette::Window).lightness(), 200);

    QAction* dark = themeAction(w, "Dark");
    ASSERT_NE(dark, nullptr);
    dark->trigger();
    QTest::qWait(50);
    EXPECT_TRUE(TimelineTheme::current().dark);
    EXPECT_LT(QApplication::palette().color(QPalette::Window).lightness(), 80);
    EXPECT_LT(QApplication::palette().color(QPalette::Base).lightness(), 80);
    EXPECT_LT(rulerLightness(*tab->timeline()), 80);
    EXPECT_EQ(savedTheme(), Theme::Dark);
    EXPECT_EQ(QSettings().value("view/theme").toString(), QStringLiteral("dark"));

    // A new window applies the saved choice; its menu shows it checked.
    {
        applyTheme(Theme::Light);
        MainWindow again;
        EXPECT_TRUE(TimelineTheme::current().dark);
        QAction* checked = themeAction(again, "Dark");
        ASSERT_NE(checked, nullptr);
        EXPECT_TRUE(checked->isChecked());
    }

    QAction* light = themeAction(w, "Light");
    ASSERT_NE(light, nullptr);
    light->trigger();
    QTest::qWait(50);
    EXPECT_FALSE(TimelineTheme::current().dark);
    EXPECT_GT(QApplication::palette().color(QPalette::Window).lightness(), 200);
    EXPECT_EQ(rulerLightness(*tab->timeline()), lightRuler);
}

TEST_F(ThemeTest, FollowTheDesktopIsTheDefaultAndReadsItsScheme) {
    EXPECT_EQ(savedTheme(), Theme::System);
    EXPECT_FALSE(isDark(Theme::System));  // Xvfb: light
    EXPECT_TRUE(isDark(Theme::Dark));
    EXPECT_FALSE(isDark(Theme::Light));
    qputenv("GTK_THEME", "Adwaita:dark");
    EXPECT_TRUE(desktopIsDark());
    EXPECT_TRUE(isDark(Theme::System));
    qunsetenv("GTK_THEME");
    QSettings().setValue("view/theme", "purple");  // a value of a newer build
    EXPECT_EQ(savedTheme(), Theme::System);
}

}  // namespace
