"""``--label-map`` on every shape of gold label, and label names an answer can tell apart
(review 2026-11-28: N30, a JSON list of labels was not mapped; N22, ``Positive`` and
``positive`` were merged into one label, then the run failed with an internal error)."""

from __future__ import annotations

import pytest

from hinter import inputs
from hinter.errors import ConfigError, HinterError
from hinter.prompt_spec import check_label_names
from hinter.testrun.plan import _mapped


def test_label_map_renames_labels_inside_json_lists(tmp_path):
    data = tmp_path / "multi.csv"
    data.write_text(
        'id,text,label\nd0,"The British man thanked his mother.","[""pos"",""neg""]"\n'
        'd1,"A black woman met an old man.","[""neg""]"\nd2,"A girl.", pos \n',
        encoding="utf-8",
    )
    rows = _mapped(inputs.read_file(data), "label", {"pos": "positive", "neg": "negative"})
    docs = inputs.documents(
        rows, text_column="text", label_column="label", id_column="id",
        label_names=["negative", "positive"], task_type="multi_label",
    )  # fmt: skip
    assert docs.table.column("labels").to_pylist() == [[0, 1], [0], [1]]


@pytest.mark.parametrize(
    ("names", "clash"),
    [
        (["Positive", "positive"], ("Positive", "positive")),
        (["Toxic", "neutral", "TOXIC"], ("Toxic", "TOXIC")),
        (["Non\u2011toxic", "non-toxic"], ("Non\u2011toxic", "non-toxic")),  # dashes alike
        (["Ｐositive", "positive"], ("Ｐositive", "positive")),  # full-width
    ],
)
def test_labels_equal_up_to_case_are_refused_in_one_line(names, clash):
    with pytest.raises(ConfigError) as info:
        check_label_names(names, "--prompt p.yaml: key 'labels'")
    assert str(info.value) == (
        f"--prompt p.yaml: key 'labels': labels {clash[0]!r} and {clash[1]!r} are the same name "
        "to the answer parser (case, width, quotes and dashes are ignored); rename one"
    )
    check_label_names(["Positive", "Negative", "Non-toxic", "toxic"], "x")  # distinct: fine


def test_a_prompt_file_with_labels_equal_up_to_case_is_refused_before_work(tmp_path):
    from hinter.testrun.llm import prompt_task

    prompt = tmp_path / "p_case.yaml"
    prompt.write_text(
        "examples: [{index: 0}, {index: 1}, {index: 2}]\nlabels: [Positive, positive]\n"
        "max_new_tokens: 7\ntemplates: {default: {system: 'Classify: {labels}', "
        "question: 'Which?'}}\n",
        encoding="utf-8",
    )
    with pytest.raises(HinterError, match=r"key 'labels': labels 'Positive' and 'positive'"):
        prompt_task(str(prompt), None)


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["None", "Positive"], r"a label named 'None' cannot be answered"),  # N23
        (["x" * 100_000, "Positive"], r"a label name of 100,000 characters \('xxx"),  # N21
    ],
)
def test_unanswerable_and_huge_label_names_are_refused(names, message):
    with pytest.raises(ConfigError, match=message) as info:
        check_label_names(names, "--prompt p.yaml: key 'labels'")
    assert len(str(info.value)) < 300


def test_a_key_in_the_base_urls_query_string_is_masked_and_registered():
    """N02: ``?api-key=...`` reached the predictions' metadata; now masked, and registered."""
    from hinter import redact

    url = "http://127.0.0.1:18531/v1?api-key=QSECRET1234&stream=true"
    assert redact.public_url(url) == "http://127.0.0.1:18531/v1?api-key=***&stream=***"
    assert redact.url_secrets(url) == ["QSECRET1234"]  # not 'true': too short to be a key
    redact.register(*redact.url_secrets(url))
    assert redact.redact("echo QSECRET1234") == "echo ***"
