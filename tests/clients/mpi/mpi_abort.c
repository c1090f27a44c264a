/* An MPI program that ends with MPI_Abort (tests/capture/MpiCaptureTest.cpp): after a barrier,
 * the last rank aborts with error code 3 while the others wait for a message that never comes. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        usleep(100 * 1000);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int never = 0;
    MPI_Recv(&never, 1, MPI_INT, size - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
