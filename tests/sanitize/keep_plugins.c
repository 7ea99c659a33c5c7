/*
 * keep_plugins.c - linked into the MPI and OpenSHMEM test programs of a
 * sanitizer build only (tests/sanitize/sanitize.cmake).  Open MPI
 * dlcloses its plugins in MPI_Finalize, before LeakSanitizer looks for
 * leaks at exit; the blocks those plugins kept then have stacks of
 * "<unknown module>" frames, which no suppression can name.  This dlclose,
 * exported from the program, is found before the C library's, and keeps
 * every library loaded, so that each frame names its library and
 * tests/sanitize/lsan.supp can suppress Open MPI's own blocks by library
 * while a block that ccplan leaks is still reported.
 */
int dlclose(void *handle);

int dlclose(void *handle)
{
	(void)handle;
	return 0;
}
