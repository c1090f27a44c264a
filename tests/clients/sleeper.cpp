// Test client: runs until killed, recording an NVTX range "tick" around each 10 ms sleep.
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

int main() {
    for (;;) {
        nvtxRangePushA("tick");
        usleep(10000);
        nvtxRangePop();
    }
}
