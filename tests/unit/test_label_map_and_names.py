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
