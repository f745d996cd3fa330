"""What someone is like: the questions that ask it and the lines that say it, told apart by their
grammar (``qa.describing``), not by their words."""

from __future__ import annotations

from staragent.qa.describing import asks_what_someone_is_like, says_what_someone_is


def test_questions_asking_what_a_person_is_like_are_told_from_questions_asking_who_they_are():
    asking = ["and how is he described?", "is that guy a bad person or what?", "what sort of person is she, according to the reading?",
              "what's wrong with his personality?", "what do they say about Tom Brandt's character?", "how does the narrator describe him"]
    not_asking = ["who is he?", "is he the narrator?", "how does he describe the harbour?", "how is the room described?",
                  "is it a sonnet?", "what is the second monitor called?", "who wrote the harbour song?"]
    assert all(asks_what_someone_is_like(q) for q in asking), [q for q in asking if not asks_what_someone_is_like(q)]
    assert not any(asks_what_someone_is_like(q) for q in not_asking), [q for q in not_asking if asks_what_someone_is_like(q)]


def test_a_line_says_what_someone_is_when_a_person_is_the_subject_of_be_with_a_complement():
    assert says_what_someone_is("He was not an unkind old sailor.") and says_what_someone_is("She is rather stubborn.")
    for other in ["Tom Brandt had then time to think about the boats.", "It was the best of times.", "The display will be reset.",
                  "He walked down to the harbour."]:
        assert not says_what_someone_is(other), other
