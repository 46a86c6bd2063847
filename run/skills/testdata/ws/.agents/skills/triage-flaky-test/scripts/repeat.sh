#!/bin/sh
echo repeated "$1"
