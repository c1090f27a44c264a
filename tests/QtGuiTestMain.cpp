// GoogleTest main for GUI test programs: one QApplication for all tests (run under Xvfb).
// Listing the tests (ctest's discovery at build time) needs no display, so it skips Qt.
#include <gtest/gtest.h>

#include <QApplication>
#include <QTemporaryDir>
#include <QSettings>
#include <cstring>

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--gtest_list_tests") == 0) {
            ::testing::InitGoogleTest(&argc, argv);
            return RUN_ALL_TESTS();
        }
    QApplication app(argc, argv);
    // Each test process gets its own settings: ctest runs GUI tests in parallel, and a shared
    // settings file (recent files, window state) would leak between them.
    QTemporaryDir settingsDir;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
