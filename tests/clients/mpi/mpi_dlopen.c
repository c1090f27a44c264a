/* A program without MPI that runs MPI code from a library it loads with dlopen(RTLD_LOCAL)
 * (argv[1]: the path of libmpi_plugin.so), as Python does with mpi4py. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 3;
    }
    int (*run)(void) = (int (*)(void))dlsym(h, "plugin_run");
    return run ? run() : 4;
}
