// SPDX-License-Identifier: GPL-2.0
/*
 * GNU build-id notes (see build-id.h). A note is a 12-byte header (name size, descriptor size,
 * type), the name ("GNU\0" here) and the descriptor (the build-id), each padded to 4 bytes in
 * sysfs and in most ELF files; libelf knows the 8-byte padding of PT_NOTE segments aligned so.
 */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>

#include "util/build-id.h"
#include "util/fs.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static u32 note_u32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void take(const u8 *desc, u64 descsz, u8 *id, u8 *size)
{
	*size = descsz > BUILD_ID_MAX ? BUILD_ID_MAX : (u8)descsz;
	memcpy(id, desc, *size);
}

int build_id_from_notes(const void *notes, size_t len, u8 *id, u8 *size)
{
	const u8 *p = notes;
	size_t off = 0;

	while (len - off >= 12) {
		u64 namesz = note_u32(p + off), descsz = note_u32(p + off + 4);
		u32 type = note_u32(p + off + 8);
		u64 nalign = (namesz + 3) & ~3ULL, dalign = (descsz + 3) & ~3ULL;
		const u8 *name, *desc;

		off += 12;
		if (nalign > len - off)
			return -ENOENT;
		name = p + off;
		off += nalign;
		if (dalign > len - off)
			return -ENOENT;
		desc = p + off;
		off += dalign;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(name, "GNU", 4) && descsz) {
			take(desc, descsz, id, size);
			return 0;
		}
	}
	return -ENOENT;
}

int build_id_from_notes_file(const char *path, u8 *id, u8 *size)
{
	char buf[8192];
	ssize_t n = read_small_file(path, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return build_id_from_notes(buf, (size_t)n, id, size);
}

static int data_build_id(Elf_Data *d, u8 *id, u8 *size)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz &&
		    !memcmp((const u8 *)d->d_buf + name_off, "GNU", 4)) {
			take((const u8 *)d->d_buf + desc_off, nh.n_descsz, id, size);
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

int build_id_from_elf(Elf *elf, u8 *id, u8 *size)
{
	Elf_Scn *scn = NULL;
	size_t i, phnum;

	if (elf_kind(elf) != ELF_K_ELF)
		return -EINVAL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && !data_build_id(d, id, size))
			return 0;
	}
	if (elf_getphdrnum(elf, &phnum))
		return -ENOENT;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (d && !data_build_id(d, id, size))
			return 0;
	}
	return -ENOENT;
}

int build_id_from_fd(int fd, u8 *id, u8 *size)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int err;

	if (!elf)
		return -EINVAL;
	err = build_id_from_elf(elf, id, size);
	elf_end(elf);
	return err;
}

void build_id_hex(char *out, const u8 *id, u32 size)
{
	for (u32 i = 0; i < size; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * size] = '\0';
}
