#pragma once
// Light or dark (issue #21 item 5): the widgets' palette and the timeline's colors follow the
// desktop's scheme, or the user's choice in View > Theme, saved per user (QSettings
// "view/theme": system, light or dark). Qt 6.4 (Debian 12) has no QStyleHints::colorScheme, so
// the desktop's scheme is read from the palette its platform theme gives the application (a dark
// window color) and from GTK_THEME's ":dark" variant.
#include <QString>

class QMenu;

namespace sl::viewer {

enum class Theme { System, Light, Dark };

Theme savedTheme();
void saveTheme(Theme theme);
QString themeName(Theme theme);  // "system", "light", "dark"

// Whether the desktop's scheme is dark (read from the palette Qt had before any applyTheme).
bool desktopIsDark();
// Whether `theme` is dark on this desktop.
bool isDark(Theme theme);

// Sets the application's palette (the desktop's own for light, a dark one for dark) and the
// timeline's colors. Widgets repaint; timelines rebuild their frame.
void applyTheme(Theme theme);

// View > Theme: Follow the Desktop, Light, Dark (exclusive); a choice is applied and saved.
QMenu* addThemeMenu(QMenu* parent);

}  // namespace sl::viewer
