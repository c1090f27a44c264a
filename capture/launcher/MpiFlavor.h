#pragma once
// Which MPI implementation a program runs, where it shows before the program starts: the
// launcher's name (mpirun.openmpi, mpiexec.hydra, ...) or the MPI library the executable links.
// -t mpi preloads one module per MPI ABI (Open MPI's handles are pointers, MPICH's ints); the
// wrong one broke every MPI call of the program (MPICH aborted each rank, Open MPI segfaulted).
#include <string>

namespace sl::capture {

// "openmpi", "mpich", or "" when the program does not say (a script, python with mpi4py).
std::string mpiFlavorOf(const std::string& programPath);

// The implementation whose launcher started this process as a rank, from the variables it
// sets (`mpiexec.mpich -n 4 sightline profile -t mpi python3 train.py`, where the program says
// nothing): Open MPI's mpirun sets OMPI_COMM_WORLD_RANK; MPICH's Hydra (Intel MPI's too, the
// same ABI) PMI_RANK with PMI_FD or PMI_PORT, which Open MPI never sets. "" otherwise (a
// launcher that serves either, as srun with PMIx). `variable`: the one that told.
std::string mpiFlavorOfEnvironment(std::string* variable = nullptr);

}  // namespace sl::capture
