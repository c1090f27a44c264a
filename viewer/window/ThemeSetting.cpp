#include "viewer/window/ThemeSetting.h"

#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QPalette>
#include <QSettings>

#include "viewer/timeline/TimelineTheme.h"

namespace sl::viewer {

namespace {

constexpr const char* kKey = "view/theme";

// The palette the desktop gave the application, kept before the first applyTheme changes it.
const QPalette& desktopPalette() {
    static const QPalette p = QApplication::palette();
    return p;
}

QPalette darkPalette() {
    // The usual dark variant of Qt's Fusion colors.
    QPalette p;
    const QColor window(0x2B, 0x2D, 0x31), base(0x1E, 0x1F, 0x22), text(0xE6, 0xE8, 0xEB);
    const QColor disabled(0x80, 0x84, 0x8A), highlight(0x2F, 0x6F, 0xD0);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Light, window.lighter(150));
    p.setColor(QPalette::Midlight, window.lighter(125));
    p.setColor(QPalette::Mid, window.darker(120));
    p.setColor(QPalette::Dark, window.darker(150));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x90, 0xCA, 0xF9));
    p.setColor(QPalette::LinkVisited, QColor(0xCE, 0x93, 0xD8));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

}  // namespace

QString themeName(Theme theme) {
    switch (theme) {
        case Theme::Light: return QStringLiteral("light");
        case Theme::Dark: return QStringLiteral("dark");
        case Theme::System: break;
    }
    return QStringLiteral("system");
}

Theme savedTheme() {
    const QString v = QSettings().value(kKey).toString();
    if (v == QLatin1String("light")) return Theme::Light;
    if (v == QLatin1String("dark")) return Theme::Dark;
    return Theme::System;  // also for an unknown value: a newer build's choice
}

void saveTheme(Theme theme) { QSettings().setValue(kKey, themeName(theme)); }

bool desktopIsDark() {
    if (qEnvironmentVariable("GTK_THEME").endsWith(QLatin1String(":dark"))) return true;
    return desktopPalette().color(QPalette::Window).lightness() < 128;
}

bool isDark(Theme theme) { return theme == Theme::Dark || (theme == Theme::System && desktopIsDark()); }

void applyTheme(Theme theme) {
    desktopPalette();  // kept before it is replaced
    static bool replaced = false;  // the desktop's palette is left alone until a dark one is set
    const bool dark = isDark(theme);
    TimelineTheme::setCurrent(dark);  // first: the palette change makes timelines rebuild
    if (!dark && !replaced) return;
    replaced = true;
    QApplication::setPalette(dark ? darkPalette() : desktopPalette());
}

QMenu* addThemeMenu(QMenu* parent) {
    QMenu* menu = parent->addMenu(QStringLiteral("&Theme"));
    auto* group = new QActionGroup(menu);
    const Theme current = savedTheme();
    for (auto [theme, text] : {std::pair{Theme::System, "Follow the &Desktop"},
                               std::pair{Theme::Light, "&Light"}, std::pair{Theme::Dark, "&Dark"}}) {
        QAction* a = menu->addAction(QString::fromLatin1(text));
        a->setCheckable(true);
        a->setChecked(theme == current);
        a->setData(themeName(theme));
        group->addAction(a);
        const Theme chosen = theme;
        QObject::connect(a, &QAction::triggered, menu, [chosen] {
            saveTheme(chosen);
            applyTheme(chosen);
        });
    }
    return menu;
}

}  // namespace sl::viewer
