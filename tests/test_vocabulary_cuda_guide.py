"""Section headings of NVIDIA's CUDA Programming Guide and Best Practices Guide as a name list
(glossary/vocabulary/names-cuda-guide-sections.yaml): the file is well formed (headings of several words,
none a card's label, none in another name list), lookup answers one heading of every group, in any case,
with the group's card (or names it and answers no card when the group has none), and, rebuilt without the
file, lookup answers none of the carded headings with its listed card: a heading is listed only where lookup
missed it or answered a wrong card."""

from __future__ import annotations

from pathlib import Path

import pytest

import heading_lists

GUIDE = "CUDA guide section heading"
FILE = "names-cuda-guide-sections.yaml"


# --- well formed ----------------------------------------------------------------------------------------

def test_every_heading_has_several_words_and_no_card_carries_it() -> None:
    heading_lists.check_several_words_and_no_card_label(GUIDE)


def test_every_group_cites_a_guide_page() -> None:
    """Each group's section names the page (or guide) its headings were read from."""
    groups = heading_lists.name_list(GUIDE).groups
    uncited = [g.section[:60] for g in groups if "https://docs.nvidia.com/cuda/" not in g.section]
    assert not uncited, uncited


def test_no_heading_is_in_another_name_list() -> None:
    heading_lists.check_in_no_other_list(GUIDE)


# --- lookup answers the list ------------------------------------------------------------------------------

def test_lookup_answers_one_heading_of_every_group_in_any_case_with_its_card() -> None:
    heading_lists.check_lookup_answers_one_heading_per_group(GUIDE)


# --- listed only where lookup missed ----------------------------------------------------------------------

@pytest.mark.slow
def test_without_the_list_lookup_answers_no_carded_heading_with_its_card(tmp_path: Path) -> None:
    heading_lists.check_each_carded_heading_needs_the_list(GUIDE, FILE, tmp_path)
