/* Timed loops of MPI calls for the -t mpi cost benchmark (tests/bench/capture/mpi_overhead.sh),
 * timed inside the program so that the profiler's start-up and merge are not in the figure.
 *   mpi_call_cost iprobe N     rank 0 calls MPI_Iprobe N times (a local call: the wrapper's cost
 *                              without any waiting on another rank)
 *   mpi_call_cost pingpong N   ranks 0 and 1 exchange an 8-byte message N times (2N calls each)
 * Rank 0 prints "<mode>: X ns per call" (pingpong: per round trip). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int pingpong = argc > 1 && strcmp(argv[1], "pingpong") == 0;
    const long n = argc > 2 ? atol(argv[2]) : 100000;
    double v = 0;
    int bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (!pingpong && rank == 0) {
        for (long i = 0; i < n; ++i) {
            int flag = 0;
            MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            bad += flag;
        }
    } else if (pingpong && size >= 2 && rank < 2) {
        for (long i = 0; i < n; ++i) {
            if (rank == 0) {
                MPI_Send(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                v += 1;
                MPI_Send(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
            }
        }
        bad += rank == 0 && v != (double)n;
    }
    const double t1 = MPI_Wtime();
    if (rank == 0)
        printf("%s: %.1f ns per %s\n", pingpong ? "pingpong" : "iprobe", (t1 - t0) * 1e9 / (double)n,
               pingpong ? "round trip" : "call");
    MPI_Finalize();
    return bad != 0;
}
