// GoogleTest main with a QApplication (the tab's widgets and QProcess need one). Listing the
// tests (ctest discovery at build time) needs no display.
#include <gtest/gtest.h>

#include <QApplication>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
    bool listOnly = false;
    for (int i = 1; i < argc; ++i) listOnly |= std::strcmp(argv[i], "--gtest_list_tests") == 0;
    ::testing::InitGoogleTest(&argc, argv);
    if (listOnly) return RUN_ALL_TESTS();
    if (!std::getenv("DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("SightlineTests");
    QApplication::setApplicationName("capture_tab_tests");
    return RUN_ALL_TESTS();
}
