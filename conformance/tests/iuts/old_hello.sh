#!/bin/sh
# The reference as a spec 1.1.0 IUT that does not advertise train_seed=1:
# from 1.1 on the fresh-seed training run is required (P7, P10), so on a
# vector set of spec 1.1 the runner cannot run it and the verdict is
# PARTIAL. (Claiming 1.0.0 it would be judged by 1.0, where the run is not
# required: spec_1_0_0.sh.)
. "$(dirname "$0")/common.sh"
case $1 in
hello) echo "protocol=1 name=old version=0 spec=1.1.0" ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
