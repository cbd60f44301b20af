"""Rule track_windows: what an LLM track's models read of each document of one shard."""

from hinter import userdata
from hinter.models.llm import write_track_windows
from hinter.workflow import run


def main():
    write_track_windows(
        snakemake.params.llms,
        dataset=snakemake.wildcards.dataset,
        docs_path=snakemake.input.docs,
        meta_path=snakemake.input.meta,
        train_path=snakemake.input.train,
        out_path=snakemake.output[0],
        cache_dir=snakemake.params.cache_dir,
        from_hub=snakemake.params.from_hub,
        prompts_dir=userdata.prompts_dir(snakemake.wildcards.dataset, snakemake.params.prompt),
    )


run(snakemake, main)
