# SPDX-License-Identifier: MIT
# man/local.mk - the overview page; each module lists its own pages
dist_man_MANS += man/iostorm.1
dist_man_MANS += man/libiostorm.3
dist_man_MANS += man/iostorm-annotate.1
