#!/bin/sh
if grep -q "npm publish"; then echo "no publishing" >&2; exit 2; fi
