"""Swift source as the scripts/check-*.py checks read it."""
import re


def code_only(text: str) -> str:
    """The source without comments and string literals (a name in prose is not a use); every line
    stays where it was, so line numbers still point into the file."""
    text = re.sub(r'"""[\s\S]*?"""', lambda m: '""' + "\n" * m.group(0).count("\n"), text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"/\*[\s\S]*?\*/", lambda m: "\n" * m.group(0).count("\n"), text)
    return re.sub(r"//[^\n]*", "", text)
