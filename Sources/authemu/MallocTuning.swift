#if canImport(Glibc)
    import CMalloc
#endif

/// glibc's allocator, tuned at start for the code log's listings: an answer of a few megabytes
/// (10,000 codes is ~2-3 MB, built in two or three buffers) was mapped fresh and unmapped again on
/// every read, about 800 page faults a read of 5,000 codes, half the daemon's CPU for it. Blocks
/// up to 16 MiB now come from the heap, and up to 16 MiB freed at its top stay mapped for the
/// next read (both limits were a few hundred KiB): 5,000 codes 6.3 -> 4.1 ms of CPU a read.
enum MallocTuning {
    static let limit: Int32 = 16 << 20

    static func apply() {
        #if canImport(Glibc)
            _ = mallopt(M_MMAP_THRESHOLD, limit)
            _ = mallopt(M_TRIM_THRESHOLD, limit)
        #endif
    }
}
