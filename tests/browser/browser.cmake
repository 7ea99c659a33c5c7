# The pictures in a real browser: tests/browser/browser_test.sh renders a
# `ccplan show` SVG, the compare plot, the tau-plot and the HTML report
# with headless Chromium and checks each PNG with png_check (zlib).  The
# test fails, never skips, when Chromium or zlib is missing: make setup
# installs both.  Label: browser.
find_package(ZLIB)
if(ZLIB_FOUND)
  add_executable(png_check ${CMAKE_CURRENT_LIST_DIR}/png_check.c)
  target_link_libraries(png_check PRIVATE ZLIB::ZLIB)
  add_test(NAME browser
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/browser_test.sh
                   $<TARGET_FILE:ccplan> $<TARGET_FILE:png_check>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/browser)
else()
  add_test(NAME browser
           COMMAND sh -c "echo 'browser test: FAILED: zlib (zlib1g-dev) was not found when the build was configured; make setup installs it' >&2; exit 1")
endif()
set_tests_properties(browser PROPERTIES LABELS browser TIMEOUT 120)
