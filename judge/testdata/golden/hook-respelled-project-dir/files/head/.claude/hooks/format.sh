#!/bin/sh
prettier --write "$1"
