"""params.yaml validation: the shipped file loads; bad values fail naming the key and the file."""

from pathlib import Path

import pytest

from papers_digest.core.params import LOCAL_PREVIEW, EmailParams, MovedKeyWarning, ParamsError, load_params

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_params_load_with_documented_defaults():
    params = load_params(ROOT / "params.yaml")
    assert params.limit == 20
    assert params.source.hf_url == "https://huggingface.co"
    assert params.source.arxiv_url == "https://arxiv.org"
    assert params.source.arxiv_interval_s == 3
    assert params.llm.timeout_s == 600
    assert not params.llm.configured  # no endpoint until the user sets one


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('date: "2026-11-29"\nllm:\n  concurrency: three\n', "llm.concurrency"),
        ('date: "2026-11-29"\nllm:\n  concurrency: 0\n', "llm.concurrency"),
        ('date: "2026-11-29"\nlimit: -3\n', "limit"),
        ('date: "2026-11-29"\nllm:\n  concurency: 2\n', "unknown key 'llm.concurency'"),
        ('date: "2026-11-29"\nlimt: 5\n', "unknown key 'limt'"),
        ("date: 2026-11-29\n", 'date must be a quoted string, write date: "2026-11-29"'),
        ('date: "29/11/2026"\n', "date must be a date written YYYY-MM-DD"),
        ('date: "2026-02-30"\n', "date is not a real calendar date"),
        ('date: "2026-11-29"\nsource:\n  hf_url: huggingface.co\n', "source.hf_url"),
        ("limit: 5\n", "date is required"),
    ],
)
def test_bad_values_name_the_key_and_the_file(tmp_path, text, expected):
    path = _write(tmp_path, text)
    with pytest.raises(ParamsError) as info:
        load_params(path)
    message = str(info.value)
    assert expected in message
    assert str(path) in message


def test_missing_and_malformed_files_are_reported(tmp_path):
    with pytest.raises(ParamsError, match="file not found"):
        load_params(tmp_path / "nope.yaml")
    with pytest.raises(ParamsError, match="not valid YAML"):
        load_params(_write(tmp_path, "date: [unclosed\n"))
    with pytest.raises(ParamsError, match="must be a mapping"):
        load_params(_write(tmp_path, "- a\n- b\n"))


def test_endpoint_counts_as_configured_only_with_url_and_model(tmp_path):
    path = _write(tmp_path, 'date: "2026-11-29"\nllm:\n  base_url: http://127.0.0.1:9/v1/\n')
    params = load_params(path)
    assert params.llm.base_url == "http://127.0.0.1:9/v1"
    assert not params.llm.configured
    path = _write(tmp_path, 'date: "2026-11-29"\nllm:\n  base_url: http://127.0.0.1:9/v1\n  model: m\n')
    assert load_params(path).llm.configured


def test_extra_body_fields_go_into_every_request_and_may_not_replace_the_pipelines_own(tmp_path):
    text = 'date: "2026-11-29"\nllm:\n  temperature: 0\n  extra_body: {dry_multiplier: 0.8, dry_allowed_length: 4}\n'
    settings = load_params(_write(tmp_path, text)).llm.generation_settings()
    assert settings == {"dry_multiplier": 0.8, "dry_allowed_length": 4, "temperature": 0}
    path = _write(tmp_path, 'date: "2026-11-29"\nllm:\n  extra_body: {max_tokens: 10, top_k: 1}\n')
    with pytest.raises(ParamsError, match=r"llm\.extra_body.*max_tokens is set by the pipeline itself") as info:
        load_params(path)
    assert str(path) in str(info.value)


def test_the_emails_old_site_url_moves_to_site_base_url_with_a_warning(tmp_path):
    """`email.site_url` (before #39) is `site.base_url` now: one address for the feeds, the email and link previews."""
    old = 'date: "2026-11-29"\nemail:\n  to: [a@example.org]\n  site_url: https://digest.example.org/\n'
    with pytest.warns(MovedKeyWarning, match=r"email\.site_url is now site\.base_url"):
        params = load_params(_write(tmp_path, old))
    assert params.site.base_url == "https://digest.example.org/" and params.email.to == ["a@example.org"]
    with pytest.warns(MovedKeyWarning):  # the shipped file's old empty line: dropped, the default address kept
        assert load_params(_write(tmp_path, 'date: "2026-11-29"\nemail:\n  site_url: ""\n')).site.base_url == (
            LOCAL_PREVIEW
        )
    both = old + "site:\n  base_url: https://other.example.org/\n"
    with pytest.raises(
        ParamsError, match=r"email\.site_url .* and site\.base_url .* differ: .* remove email\.site_url"
    ):
        load_params(_write(tmp_path, both))
    same = old + "site:\n  base_url: https://digest.example.org/\n"
    with pytest.warns(MovedKeyWarning):
        assert load_params(_write(tmp_path, same)).site.base_url == "https://digest.example.org/"
    assert "site_url" not in EmailParams.model_fields
