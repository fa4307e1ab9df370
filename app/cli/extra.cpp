// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"

#include "core/devicepeaks.h"

namespace tpuscope::cli {

// advise.cpp
int runDiagnosisCommand(const Arguments& args, std::ostream& out, std::ostream& err);
// memory.cpp
int runMemoryCommand(const Arguments& args, std::ostream& out, std::ostream& err);
// share.cpp (share, open-text, diff, card)
int runShareCommand(const Arguments& args, std::ostream& out, std::ostream& err);

bool findTpuGenerationKey(const std::string& key)
{
    return model::findTpuGeneration(key) != nullptr;
}

int runExtraCommand(const Arguments& args, std::ostream& out, std::ostream& err)
{
    if (int rc = runShareCommand(args, out, err); rc != kUnknownCommand)
        return rc;
    if (int rc = runStepsCommand(args, out, err); rc != kUnknownCommand)
        return rc;
    if (int rc = runMemoryCommand(args, out, err); rc != kUnknownCommand)
        return rc;
    return runDiagnosisCommand(args, out, err);
}

} // namespace tpuscope::cli
