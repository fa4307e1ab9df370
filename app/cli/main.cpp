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
        // Help comes from the same tables the parser reads: tpuscope-cli --help, CMD --help.
        if (args.help) {
            std::fputs((args.spec ? commandHelp(*args.spec) : generalHelp()).c_str(), stdout);
            return 0;
        }
        const std::string who = args.spec ? "tpuscope-cli " + std::string(args.spec->name) : "tpuscope-cli";
        // The error quotes the command line, which may hold control characters like any file name.
        const std::string error = tpuscope::model::neutralForTerminal(args.error);
        std::fprintf(stderr, "%s: %s\n", who.c_str(), error.c_str());
        // The error lists what the command takes; what each option does is one command away.
        if (args.spec && !declaredOptions(*args.spec).empty())
            std::fprintf(
                stderr, "(tpuscope-cli help %s says what each option does)\n", std::string(args.spec->name).c_str());
        else if (args.command.empty())
            std::fprintf(stderr, "\n%s", generalHelp().c_str());
        return 2;
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
