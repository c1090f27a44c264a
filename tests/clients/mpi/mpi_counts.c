/* An MPI program with a known number of calls of every kind per rank (tests/capture/
 * MpiCaptureTest.cpp): point to point in a ring, nonblocking pairs and their waits,
 * collectives, a communicator split, and MPI_Iprobe called rank + 1 times so that ranks differ.
 * Run with 2 or more ranks. Exits 0 when every message arrived as sent. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int bad = 0;

    /* Ring, blocking: 256 ints (1024 bytes) to the next rank, tag 7. Even ranks send first. */
    int out[256], in[256];
    for (int i = 0; i < 256; ++i) out[i] = rank * 1000 + i;
    if (rank % 2 == 0) {
        MPI_Send(out, 256, MPI_INT, next, 7, MPI_COMM_WORLD);
        MPI_Recv(in, 256, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, 256, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, 256, MPI_INT, next, 7, MPI_COMM_WORLD);
    }
    bad += in[5] != prev * 1000 + 5;

    /* Three rounds of a nonblocking exchange with both neighbours: 64 doubles, tag 11 + round. */
    for (int round = 0; round < 3; ++round) {
        double s[64], r[64];
        for (int i = 0; i < 64; ++i) s[i] = rank + round;
        MPI_Request req[2];
        MPI_Irecv(r, 64, MPI_DOUBLE, prev, 11 + round, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(s, 64, MPI_DOUBLE, next, 11 + round, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        bad += r[0] != prev + round;
    }

    /* Local calls whose count depends on the rank. */
    for (int i = 0; i <= rank; ++i) {
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }

    /* Collectives. */
    MPI_Barrier(MPI_COMM_WORLD);
    double table[100];
    for (int i = 0; i < 100; ++i) table[i] = rank == 0 ? i : -1;
    MPI_Bcast(table, 100, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    bad += table[99] != 99;
    for (int i = 0; i < 5; ++i) {
        double v = rank, sum = 0;
        MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        bad += sum != size * (size - 1) / 2.0;
    }
    long part = rank, total = 0;
    MPI_Reduce(&part, &total, 1, MPI_LONG, MPI_SUM, size - 1, MPI_COMM_WORLD);
    int all[64], mine[16];
    for (int i = 0; i < 16; ++i) mine[i] = rank;
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, next, 21, &got, 1, MPI_INT, prev, 21, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    bad += got != prev;

    /* A communicator of the even and the odd ranks. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Finalize();
    if (bad) fprintf(stderr, "rank %d: %d wrong values\n", rank, bad);
    return bad ? 1 : 0;
}
