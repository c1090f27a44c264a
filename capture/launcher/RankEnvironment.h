#pragma once
// The variables that say which rank of a distributed job a process is (torchrun, mpirun,
// srun, Hydra/PMIx launchers). The report keeps them from the profiler's own environment, which
// the program inherits, so a report made as `mpirun ... sightline profile -o rank%q{RANK} ...`
// or under torchrun still knows its rank when its file name is changed (issue #20: the recipes'
// and `sightline recipe`'s rank rule reads Session::environment).
#include <array>
#include <string_view>

namespace sl::capture {

inline constexpr std::array<std::string_view, 14> kRankVariables = {
    "RANK",         "LOCAL_RANK",       "WORLD_SIZE",        "LOCAL_WORLD_SIZE",
    "GROUP_RANK",   "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",     "PMI_SIZE",         "PMIX_RANK",         "SLURM_PROCID",
    "SLURM_LOCALID", "SLURM_NTASKS"};

}  // namespace sl::capture
