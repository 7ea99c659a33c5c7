/*
 * cache_files.h - for the inspector's tests and benchmark: remove a plan
 * cache file and the files SQLite keeps beside it (-wal, -shm).
 */
#ifndef INSP_CACHE_FILES_H
#define INSP_CACHE_FILES_H

#include <stdio.h>
#include <unistd.h>

static void remove_cache(const char *path)
{
	char aux[4200];
	unlink(path);
	snprintf(aux, sizeof aux, "%s-wal", path);
	unlink(aux);
	snprintf(aux, sizeof aux, "%s-shm", path);
	unlink(aux);
}

#endif
