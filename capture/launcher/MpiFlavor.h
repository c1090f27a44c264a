#pragma once
// Which MPI implementation a program runs, where it shows before the program starts: the
// launcher's name (mpirun.openmpi, mpiexec.hydra, ...) or the MPI library the executable links.
// -t mpi preloads one module per MPI ABI (Open MPI's handles are pointers, MPICH's ints); the
// wrong one broke every MPI call of the program (MPICH aborted each rank, Open MPI segfaulted).
#include <string>

namespace sl::capture {

// "openmpi", "mpich", or "" when the program does not say (a script, python with mpi4py).
std::string mpiFlavorOf(const std::string& programPath);

}  // namespace sl::capture
