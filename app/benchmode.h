// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `tpuscope --bench-load FILE [--bench-steps N] [--bench-size WxH] [--bench-timeout S]`: the
// measured run of the performance benchmark (tests/bench/bench_suite drives it; PERFORMANCE.md §6).
// The real MainWindow opens FILE through its normal path (TraceSession off the GUI thread, then
// every view gets the profile), a scripted Ctrl+wheel zoom and Shift+wheel pan runs on the
// timeline, and one JSON line with the timings and memory figures goes to stdout. Exit code 0
// on success; 1 when the file cannot be loaded, 2 for bad arguments, 3 on a timeout, each with
// a message on stderr.
//
// Times run from the moment main() started, except open_to_model_s (openFile() → the session's
// worker has the profile and its op breakdown) and load_s (the loader alone). Main fields:
//   first_frame_s    the window's first frame of any kind (start page / progress)
//   first_preview_s  first frame with a partial profile on the timeline (null if none was shown)
//   first_events_s   first frame with any events on the timeline (partial or complete)
//   first_paint_s    first frame with the complete profile on the timeline
//   views_ready_s    MainWindow::onLoaded done: op table, charts and timeline have the profile
//   resident_bytes   VmRSS at first_paint minus VmRSS just before openFile(); peak_bytes the
//                    same for VmHWM (reset before openFile where the kernel allows)
//   frame_*_ms       wheel event sent → the window update that drew the new range handed to the
//                    window system; paint_*_ms is TimelineView::paintEvent alone (framePainted)
//   op_table_s       computeOpBreakdown + computeAdvice over the loaded profile, timed alone
// A frame is observed in an application event filter around the window's Expose and
// UpdateRequest events (where Qt paints dirty widgets and flushes the backing store). Without a
// display it uses the offscreen platform; TPUSCOPE_BENCH_VERBOSE=1 logs every step to stderr.

namespace tpuscope::app {

/// True when the command line asks for the bench mode (--bench-load).
bool isBenchMode(int argc, char** argv);

/// Runs the bench mode; creates its own QApplication, so call it before any other Qt object
/// exists (first thing in main()). Returns the process exit code.
int runBenchMode(int argc, char** argv);

} // namespace tpuscope::app
