/* The MPI-4 large-count functions (MPI_Send_c, ..., an MPI_Count for each count) and the
 * matched probe, as mpi4py 4 calls them where the library has them (MPICH 4, Open MPI 5): a ring
 * of MPI_Send_c and MPI_Recv_c, a message taken with MPI_Mprobe and MPI_Mrecv_c, then
 * MPI_Allreduce_c, MPI_Bcast_c, MPI_Allgather_c, MPI_Alltoallv_c, and the nonblocking MPI_Ireduce
 * and MPI_Iallgather_c with their waits, once each per rank
 * (tests/capture/MpiCaptureTest.cpp). Run with 2 or more ranks. Exits 0 when every message
 * arrived as sent, 77 where the library has no large-count functions (before MPI-4). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
#if MPI_VERSION >= 4
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int bad = 0;

    /* Ring, blocking: 128 ints (512 bytes) to the next rank, tag 21. Even ranks send first. */
    int out[128], in[128];
    for (int i = 0; i < 128; ++i) out[i] = rank * 1000 + i;
    if (rank % 2 == 0) {
        MPI_Send_c(out, 128, MPI_INT, next, 21, MPI_COMM_WORLD);
        MPI_Recv_c(in, 128, MPI_INT, prev, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv_c(in, 128, MPI_INT, prev, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send_c(out, 128, MPI_INT, next, 21, MPI_COMM_WORLD);
    }
    bad += in[3] != prev * 1000 + 3;

    /* 32 doubles (256 bytes) to the next rank, tag 22, taken by a matched probe and receive. */
    double s[32], r[32];
    for (int i = 0; i < 32; ++i) s[i] = rank + 0.5;
    MPI_Request req;
    MPI_Isend_c(s, 32, MPI_DOUBLE, next, 22, MPI_COMM_WORLD, &req);
    MPI_Message message;
    MPI_Status status;
    MPI_Mprobe(MPI_ANY_SOURCE, 22, MPI_COMM_WORLD, &message, &status);
    MPI_Mrecv_c(r, 32, MPI_DOUBLE, &message, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    bad += r[7] != prev + 0.5;

    /* Collectives: 16 longs (128 bytes) summed; 8 ints (32 bytes) from rank 0; 4 ints from each
     * rank to all; 2 ints from each rank to each. */
    long sum[16], one[16];
    for (int i = 0; i < 16; ++i) one[i] = 1;
    MPI_Allreduce_c(one, sum, 16, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    bad += sum[0] != size;
    int root[8] = {0};
    if (rank == 0)
        for (int i = 0; i < 8; ++i) root[i] = 40 + i;
    MPI_Bcast_c(root, 8, MPI_INT, 0, MPI_COMM_WORLD);
    bad += root[2] != 42;
    int mine[4] = {rank, rank, rank, rank};
    int* all = malloc(sizeof(int) * 4 * (size_t)size);
    MPI_Allgather_c(mine, 4, MPI_INT, all, 4, MPI_INT, MPI_COMM_WORLD);
    bad += all[4 * prev] != prev;
    MPI_Count* counts = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint* displs = malloc(sizeof(MPI_Aint) * (size_t)size);
    int* sendv = malloc(sizeof(int) * 2 * (size_t)size);
    int* recvv = malloc(sizeof(int) * 2 * (size_t)size);
    for (int i = 0; i < size; ++i) {
        counts[i] = 2;
        displs[i] = 2 * i;
        sendv[2 * i] = sendv[2 * i + 1] = rank * 100 + i;
    }
    MPI_Alltoallv_c(sendv, counts, displs, MPI_INT, recvv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    bad += recvv[2 * prev] != prev * 100 + rank;
    /* Nonblocking collectives: 16 longs (128 bytes) reduced to the last rank; 4 ints from each
     * rank to all, in large-count form. */
    long reduced[16];
    MPI_Request coll[2];
    MPI_Ireduce(one, reduced, 16, MPI_LONG, MPI_SUM, size - 1, MPI_COMM_WORLD, &coll[0]);
    MPI_Wait(&coll[0], MPI_STATUS_IGNORE);
    bad += rank == size - 1 && reduced[5] != size;
    MPI_Iallgather_c(mine, 4, MPI_INT, all, 4, MPI_INT, MPI_COMM_WORLD, &coll[1]);
    MPI_Wait(&coll[1], MPI_STATUS_IGNORE);
    bad += all[4 * next] != next;
    free(all);
    free(counts);
    free(displs);
    free(sendv);
    free(recvv);

    MPI_Finalize();
    if (bad) fprintf(stderr, "rank %d: %d messages arrived wrong\n", rank, bad);
    return bad ? 1 : 0;
#else
    (void)argc;
    (void)argv;
    printf("this MPI (version %d) has no large-count functions\n", MPI_VERSION);
    return 77;
#endif
}
