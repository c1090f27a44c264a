// Test client: exits with the code given as its argument (default 3). Built statically as
// static_exit (no loader: it cannot be traced by preloading), and copied setuid by the tests.
#include <cstdlib>

int main(int argc, char** argv) {
    return argc > 1 ? std::atoi(argv[1]) : 3;
}
