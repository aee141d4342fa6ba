/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GNU build-ids (NT_GNU_BUILD_ID notes): read from an ELF file, from a raw notes blob such as
 * /sys/kernel/notes, and spelled in hex. prec record stamps the build-ids it reads here into the
 * BUILD_ID feature and prec report checks its symbol files with the same reader, so a binary
 * whose note only a program header points at is found by both or by neither.
 */
#ifndef PREC_UTIL_BUILD_ID_H
#define PREC_UTIL_BUILD_ID_H

#include <stddef.h>

#include <libelf.h>

#include "format/ondisk.h"

/* The longest build-id kept: perf.data has room for 20 bytes (SHA-1), longer ones are cut. */
#define BUILD_ID_MAX 20
/* Its hex form with the NUL. */
#define BUILD_ID_HEX_SIZE (2 * BUILD_ID_MAX + 1)

/**
 * build_id_from_notes - the first GNU build-id note of a raw run of notes (4-byte aligned, as
 * /sys/kernel/notes and /sys/module/NAME/notes/.note.gnu.build-id hold them).
 * @id: BUILD_ID_MAX bytes; @size: its length (a longer note is cut to BUILD_ID_MAX)
 *
 * Return: 0, or -ENOENT when there is no such note (or the run is damaged before one).
 */
int build_id_from_notes(const void *notes, size_t len, u8 *id, u8 *size);

/**
 * build_id_from_notes_file - build_id_from_notes() of a sysfs notes file.
 *
 * Return: 0, -ENOENT when it has no build-id, or the negative errno of reading it.
 */
int build_id_from_notes_file(const char *path, u8 *id, u8 *size);

/**
 * build_id_from_elf - the GNU build-id of an ELF file: from its SHT_NOTE sections, else from its
 * PT_NOTE segments (a file whose section headers lost the note, or never named it, still has it
 * where the loader and the kernel look).
 *
 * Return: 0, -EINVAL when elf is not an ELF file, or -ENOENT when it has no build-id.
 */
int build_id_from_elf(Elf *elf, u8 *id, u8 *size);

/**
 * build_id_from_fd - build_id_from_elf() of an open file; the caller has called elf_version().
 *
 * Return: as build_id_from_elf().
 */
int build_id_from_fd(int fd, u8 *id, u8 *size);

/**
 * build_id_hex - spell id (size bytes) in lowercase hex, as perf names build-ids.
 * @out: at least 2 * size + 1 bytes (BUILD_ID_HEX_SIZE for any build-id)
 */
void build_id_hex(char *out, const u8 *id, u32 size);

#endif
