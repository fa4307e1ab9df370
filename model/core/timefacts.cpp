// SPDX-License-Identifier: GPL-3.0-or-later
#include "timefacts.h"

namespace tpuscope::model {

StepTimeSplit& StepTimeSplit::operator+=(const StepTimeSplit& o)
{
    computePs += o.computePs;
    collectivePs += o.collectivePs;
    hostTransferPs += o.hostTransferPs;
    infeedPs += o.infeedPs;
    idlePs += o.idlePs;
    return *this;
}

StepTimeSplit StepTimeSplit::scaled(double factor) const
{
    return {computePs * factor, collectivePs * factor, hostTransferPs * factor, infeedPs * factor, idlePs * factor};
}

} // namespace tpuscope::model
