// SPDX-License-Identifier: GPL-3.0-or-later
// tst_model: a failed internal check fails the test it happens in.
#include "../checkfailures.h"
