// SPDX-License-Identifier: GPL-3.0-or-later
// The built tpuscope-cli as the CLI tests run it: through a shell, as a user types it.
#pragma once

#include <filesystem>
#include <string>

namespace tpuscope::test {

/// False in a build without the CLI: the tests that run it skip.
inline bool haveCli()
{
    return std::filesystem::exists(TPUSCOPE_CLI_PATH);
}

/// The CLI's path, quoted for a shell command line.
inline std::string cli()
{
    return std::string("'") + TPUSCOPE_CLI_PATH + "'";
}

} // namespace tpuscope::test
