"""The model card is written from the sidecar alone (its model and dataset named once)."""

from hinter.models.model_card import model_card, sidecar_record
from hinter.models.training import TrainingSettings


def test_card_names_the_model_and_dataset_of_its_sidecar():
    meta = {"task_type": "multi_label", "n_labels": 10, "empty_label_name": "none"}
    provenance = {"init": "pretrained", "checkpoint": "nlpaueb/legal-bert-base-uncased"}
    sidecar = sidecar_record("legalbert", "ecthr_a", meta, 128, provenance)
    metrics = {"best_epoch": 2, "epochs_trained": 3,
               "test": {"micro_f1": 0.712, "macro_f1": 0.634, "documents": 1000}}  # fmt: skip
    card = model_card(sidecar, TrainingSettings(max_length=128), metrics)
    assert card.startswith("# legalbert fine-tuned on ecthr_a\n")
    assert "`nlpaueb/legal-bert-base-uncased`" in card and '(empty set = "none")' in card
    assert "| test | 71.2 | 63.4 | 1000 |" in card and "| validation |" not in card
