/* A library linked with MPI that a program without MPI loads with dlopen(RTLD_LOCAL), as Python
 * loads mpi4py (tests/capture/MpiCaptureTest.cpp): libmpi is then outside the global symbol
 * scope. Each rank: MPI_Init, two MPI_Allreduce, MPI_Finalize. Returns 0 when the sums are right. */
#include <mpi.h>

__attribute__((visibility("default"))) int plugin_run(void) {
    MPI_Init(NULL, NULL);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = 0;
    for (int i = 0; i < 2; ++i) {
        long v = rank, sum = 0;
        MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        bad += sum != (long)size * (size - 1) / 2;
    }
    MPI_Finalize();
    return bad;
}
