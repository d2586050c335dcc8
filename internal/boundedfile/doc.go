// Package boundedfile opens the files assay reads, and only files: every
// reader of a suite, corpus, json_schema, floors file, run record, replay
// trace, qrels, run file or target file goes through it, so that bad input
// gets a clear one-line error at once instead of memory that grows without
// bound or a read that blocks for ever.
//
// Open, ReadFile and Check follow symlinks and refuse anything that is not
// a regular file (a directory, a character device such as /dev/zero, a
// named pipe, a socket) before opening it, so a FIFO with no writer never
// blocks. A file larger than its Limit is refused from its size, and the
// reader Open returns fails once it has read more than the limit, so a file
// that grows while it is read is bounded too. Reader bounds any stream (a
// gzip stream's decompressed bytes), ReadLine bounds one line.
//
// Where a pipe is offered (Limit.Pipe: the suite), a path naming an open
// file descriptor — /dev/stdin, /dev/fd/N, /proc/self/fd/N, which is what
// a shell's <(...) gives — may also be a pipe. A pipe can be read only
// once, and the suite loader reads its file more than once (to tell its
// format, then to parse it), so the first read copies it (within the
// limit) into an unlinked temporary file, and every later Open or ReadFile
// of that path in the process reads the copy: a pipe past its limit costs
// no memory. Gunzip bounds a gzip stream by its decompressed size and by
// its expansion (MaxGzipRatio past GzipFree), while it is read. A File can
// Seek (a run file is read in passes), its limit counted from the file's
// start.
//
// The limits are the constants below, in one place; docs/limits.md lists
// them for users. They are far above what a real suite or corpus holds:
// they exist to turn a mistake (a device, a runaway generator, a gzip bomb)
// into an error.
package boundedfile
