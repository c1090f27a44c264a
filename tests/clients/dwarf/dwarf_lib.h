/* The shared library of dwarf_client (built without frame pointers). */
#pragma once
/* Spins `cpu_ns` of thread CPU time in dwarf_lib_spin, called through dwarf_lib_entry. */
double dwarf_lib_entry(long long cpu_ns);
