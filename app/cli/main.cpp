// SPDX-License-Identifier: GPL-3.0-or-later
// tpuscope-cli: answers questions about a profile from the terminal (same core as the GUI).
#include "cli.h"

#include "core/neutraltext.h"

#include "report/report.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

using namespace tpuscope::cli;

namespace {

void usage(std::FILE* out)
{
    std::fputs("usage:\n"
               "  tpuscope-cli summary FILE [--format text|json] [--device GEN]\n"
               "  tpuscope-cli ops FILE [--by op|category|program|framework-op|source] [--core N] [--top N]\n"
               "                        [--format table|csv|tsv|json|md] [--device GEN] [--wide]\n"
               "  tpuscope-cli steps FILE [--program NAME] [--core N] [--format table|json|csv|md]\n"
               "  tpuscope-cli advise FILE [--format text|json|md] [--device GEN]\n"
               "  tpuscope-cli fusion FILE NAME [--program NAME] [--format text|json]\n"
               "  tpuscope-cli memory FILE [--module NAME] [--format table|json|md]\n"
               "  tpuscope-cli share FILE -o OUT.tpuscope [--redact paths,names,hash|all] [--text]\n"
               "  tpuscope-cli share FILE --forum [--redact ...] [--text]   (Markdown for a forum post;\n"
               "                         paths redacted unless --redact says otherwise; --text adds the block)\n"
               "  tpuscope-cli open-text FILE|- [-o OUT.tpuscope]\n"
               "  tpuscope-cli diff BEFORE AFTER [--format table|csv|tsv|json|md] [--top N]\n"
               "  tpuscope-cli card FILE [AFTER] -o card.png [--top N]\n"
               "  tpuscope-cli thresholds [--format table|md|csv]\n"
               "  tpuscope-cli glossary                       (every metric: meaning, formula, source)\n"
               "  tpuscope-cli synth SCENARIO -o OUT.xplane.pb   (scenarios: origin-story, bench:N)\n"
               "\n"
               "FILE is any profile tpuscope opens: an XSpace (*.xplane.pb[.gz]), a Chrome trace (*.json[.gz]),\n"
               "a TF1 trace, an op_profile.json, a TensorBoard log dir or a *.tpuscope share file.\n"
               "GEN names a TPU generation (v2, v3, v4, v5e, v5p, v6e, v7x) whose peaks are used when the file\n"
               "does not record them; one that contradicts the device or peaks the file records is refused.\n"
               "--cores N sets the TPU cores where the file does not record them (op_profile.json sums all\n"
               "cores on one plane); every command and view divides per-core figures by the same count.\n"
               "Text tables elide names longer than 60 characters in the middle (half the terminal width\n"
               "when that is more); --wide prints them whole.\n"
               "Limits (each message says which one was hit):\n"
               "  --memory-budget-mb N   memory a load may take (default: the smallest of 3/4 of the RAM,\n"
               "                         ulimit -v and the cgroup's memory.max; or TPUSCOPE_MEMORY_BUDGET_MB)\n"
               "  --max-events N         events to load at most (default: what the budget holds, or\n"
               "                         TPUSCOPE_MAX_EVENTS); a JSON trace keeps the events before the limit\n"
               "  --max-hlo-instructions N  instructions per HLO module at most (default: 2000000, or\n"
               "                         TPUSCOPE_MAX_HLO_INSTRUCTIONS); a larger module keeps its ops, not its HLO\n"
               "  --max-decompressed-mb N  inflated gzip data at most (default: the memory budget)\n"
               "  --max-compression-ratio N  gzip data may inflate N:1 at most past 256 MiB (default: 200,\n"
               "                         or TPUSCOPE_MAX_COMPRESSION_RATIO)\n",
        out);
}

/// Long op names (230 characters on real profiles) would push every other column off the screen.
size_t nameWidthFor(bool wide)
{
    constexpr size_t kDefaultNameWidth = 60;
    if (wide)
        return 0;
    winsize size {};
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return std::max<size_t>(kDefaultNameWidth, size.ws_col / 2);
    return kDefaultNameWidth;
}

} // namespace

int main(int argc, char** argv)
{
    Arguments args;
    if (!parseArguments(argc, argv, args)) {
        if (!args.error.empty())
            std::fprintf(stderr, "tpuscope-cli: %s\n\n", args.error.c_str());
        usage(args.help ? stdout : stderr);
        return args.help ? 0 : 2;
    }
    tpuscope::model::setTextCellWidth(nameWidthFor(args.wide));
    // Every output carries strings from the file: the terminal gets them without control
    // characters (ESC, NUL, OSC 52 ...), whatever the command or format.
    std::ostringstream out, err;
    const int code = runCommand(args, out, err);
    std::cout << tpuscope::model::neutralForTerminal(out.str()) << std::flush;
    std::cerr << tpuscope::model::neutralForTerminal(err.str()) << std::flush;
    return code;
}
