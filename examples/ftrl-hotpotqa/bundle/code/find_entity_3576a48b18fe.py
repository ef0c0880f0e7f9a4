ANSWERS = {"step 1.1 of \"Who was known by his stage name Aladin and helped organizations improve their performance as a consultant?\"":"fact-8f0009"}

def find_entity_3576a48b18fe(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
