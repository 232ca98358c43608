// The executables' allocator: jemalloc (linked in place of glibc's malloc) with transparent huge
// pages for the memory it maps.
//
// `aicost ledger check` over 10M charges touches about 1 GB of fresh memory (groups, rows,
// resources, telemetry). In 4 KiB pages the kernel's page faults were a fifth of its time, and
// most of the gap between a first run and a warm one. Measured on BM_GovernanceCheck
// (docs/GOVERNANCE.md): the first iteration of a process 7.2-10.5 s with glibc's malloc, 3.7-3.9 s
// with this; glibc's own huge-page switch (GLIBC_TUNABLES=glibc.malloc.hugetlb=1) only works from
// the environment, and reached 4.8-6.3 s.
//
// `malloc_conf` is jemalloc's documented per-program default; $MALLOC_CONF still overrides it.
// Where the kernel's transparent huge pages are "never", the option does nothing.
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "thp:always,metadata_thp:auto";
}
