ANSWERS = {"step 1.1 of \"Who is older, Annie Morton or Terry Richardson?\"":"Terry Richardson"}

def find_entity_d40a53fe598e(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
